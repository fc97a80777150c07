package bank

import "time"

func (b *Bank) Open(id string, initialCents int64) {
	b.accountsMu.Lock()
	defer b.accountsMu.Unlock()
	b.accounts[id] = &Account{ID: id, BalanceCents: initialCents}
}

func (b *Bank) Transfer(from, to string, amountCents int64) error {
	b.accountsMu.Lock()
	defer b.accountsMu.Unlock()
	src, ok := b.accounts[from]
	if !ok {
		return ErrNoAccount
	}
	dst, ok := b.accounts[to]
	if !ok {
		return ErrNoAccount
	}
	if src.BalanceCents < amountCents {
		return ErrInsufficientFund
	}
	src.BalanceCents -= amountCents
	dst.BalanceCents += amountCents

	b.ledgerMu.Lock()
	b.ledger = append(b.ledger, Entry{From: from, To: to, AmountCents: amountCents, At: time.Now()})
	b.ledgerMu.Unlock()
	return nil
}

func (b *Bank) Balance(id string) (int64, error) {
	b.accountsMu.Lock()
	defer b.accountsMu.Unlock()
	acc, ok := b.accounts[id]
	if !ok {
		return 0, ErrNoAccount
	}
	return acc.BalanceCents, nil
}

// Reconcile replays the ledger on top of the opening balances and reports
// the accounts whose current balance does not match.
func (b *Bank) Reconcile(opening map[string]int64) []string {
	b.ledgerMu.Lock()
	defer b.ledgerMu.Unlock()
	expected := make(map[string]int64, len(opening))
	for id, cents := range opening {
		expected[id] = cents
	}
	for _, e := range b.ledger {
		expected[e.From] -= e.AmountCents
		expected[e.To] += e.AmountCents
	}

	b.accountsMu.Lock()
	defer b.accountsMu.Unlock()
	var mismatched []string
	for id, acc := range b.accounts {
		if acc.BalanceCents != expected[id] {
			mismatched = append(mismatched, id)
		}
	}
	return mismatched
}

func (b *Bank) LedgerLen() int {
	b.ledgerMu.Lock()
	defer b.ledgerMu.Unlock()
	return len(b.ledger)
}
