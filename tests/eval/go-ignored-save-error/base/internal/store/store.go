package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"example.local/shop/internal/model"
)

var ErrNotFound = errors.New("not found")

type Store struct {
	db *sql.DB
}

func New(db *sql.DB) *Store {
	return &Store{db: db}
}

func (s *Store) GetOrder(ctx context.Context, id int64) (*model.Order, error) {
	row := s.db.QueryRowContext(ctx, `SELECT id, customer_id, status, total_cents, version FROM orders WHERE id = $1`, id)
	var o model.Order
	if err := row.Scan(&o.ID, &o.CustomerID, &o.Status, &o.TotalCents, &o.Version); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("get order %d: %w", id, err)
	}
	return &o, nil
}

// SaveOrder persists the order using optimistic locking on the version column.
func (s *Store) SaveOrder(ctx context.Context, o *model.Order) error {
	res, err := s.db.ExecContext(ctx,
		`UPDATE orders SET status = $1, total_cents = $2, version = version + 1 WHERE id = $3 AND version = $4`,
		o.Status, o.TotalCents, o.ID, o.Version)
	if err != nil {
		return fmt.Errorf("save order %d: %w", o.ID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("save order %d: %w", o.ID, err)
	}
	if n == 0 {
		return fmt.Errorf("save order %d: concurrent modification", o.ID)
	}
	o.Version++
	return nil
}
