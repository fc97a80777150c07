package model

type Status string

const (
	StatusPending   Status = "pending"
	StatusPaid      Status = "paid"
	StatusShipped   Status = "shipped"
	StatusCancelled Status = "cancelled"
)

type Order struct {
	ID         int64  `json:"id"`
	CustomerID int64  `json:"customer_id"`
	Status     Status `json:"status"`
	TotalCents int64  `json:"total_cents"`
	Version    int64  `json:"-"`
}

// Cancellable reports whether the order may still be cancelled by the customer.
func (o *Order) Cancellable() bool {
	return o.Status == StatusPending || o.Status == StatusPaid
}

func (o *Order) IsFinal() bool {
	return o.Status == StatusShipped || o.Status == StatusCancelled
}
