package bank

import (
	"errors"
	"sync"
	"time"
)

var (
	ErrNoAccount        = errors.New("no such account")
	ErrInsufficientFund = errors.New("insufficient funds")
)

type Account struct {
	ID           string
	BalanceCents int64
}

type Entry struct {
	From, To    string
	AmountCents int64
	At          time.Time
}

// Bank keeps balances and the ledger of transfers in memory.
type Bank struct {
	// Lock order: accountsMu is always acquired before ledgerMu.
	// Taking them in the other order can deadlock with Transfer.
	accountsMu sync.Mutex
	ledgerMu   sync.Mutex

	accounts map[string]*Account
	ledger   []Entry
}

func New() *Bank {
	return &Bank{accounts: make(map[string]*Account)}
}
