package inventory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

var ErrOutOfStock = errors.New("out of stock")

type Item struct {
	SKU      string
	Quantity int
	Digital  bool
}

type Service struct {
	db *sql.DB
}

func NewService(db *sql.DB) *Service {
	return &Service{db: db}
}

// Reserve decrements stock for every physical item of the order in one transaction.
func (s *Service) Reserve(ctx context.Context, orderID int64, items []Item) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}

	physical := make([]Item, 0, len(items))
	for _, it := range items {
		if it.Quantity <= 0 {
			_ = tx.Rollback()
			return fmt.Errorf("order %d: bad quantity for %s", orderID, it.SKU)
		}
		if !it.Digital {
			physical = append(physical, it)
		}
	}

	for _, it := range physical {
		res, err := tx.ExecContext(ctx,
			`UPDATE stock SET available = available - $1 WHERE sku = $2 AND available >= $1`,
			it.Quantity, it.SKU)
		if err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("reserve %s: %w", it.SKU, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			_ = tx.Rollback()
			return fmt.Errorf("reserve %s: %w", it.SKU, ErrOutOfStock)
		}
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO reservations (order_id, created_at) VALUES ($1, now())`, orderID); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("record reservation: %w", err)
	}
	return tx.Commit()
}
