package wal

import (
	"fmt"
	"io"
)

// Stats summarises the on-disk state of the log.
type Stats struct {
	Segments   int
	TotalBytes int64
	Oldest     uint64
	Newest     uint64
}

func (s Stats) String() string {
	return fmt.Sprintf("%d segments, %d bytes, ids %d..%d", s.Segments, s.TotalBytes, s.Oldest, s.Newest)
}

// Collect computes Stats for the log in dir.
func Collect(dir string) (Stats, error) {
	ids, err := ListSegments(dir)
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Segments: len(ids)}
	if len(ids) > 0 {
		st.Oldest, st.Newest = ids[0], ids[len(ids)-1]
	}
	return st, nil
}

var _ io.Reader
