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

func (b *Bank) LedgerLen() int {
	b.ledgerMu.Lock()
	defer b.ledgerMu.Unlock()
	return len(b.ledger)
}
