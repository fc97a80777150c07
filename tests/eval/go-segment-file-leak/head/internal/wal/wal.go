package wal

import (
	"os"
	"sync"
)

// Log is an append-only write-ahead log split into numbered segments.
type Log struct {
	mu      sync.Mutex
	dir     string
	current *os.File
	id      uint64
}

func Open(dir string) (*Log, error) {
	ids, err := ListSegments(dir)
	if err != nil {
		return nil, err
	}
	var id uint64
	if len(ids) > 0 {
		id = ids[len(ids)-1]
	}
	f, err := OpenSegment(dir, id)
	if err != nil {
		return nil, err
	}
	return &Log{dir: dir, current: f, id: id}, nil
}

func (l *Log) Append(payload []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return writeRecord(l.current, payload)
}

func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.current.Close()
}
