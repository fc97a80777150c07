package wal

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

const segmentSuffix = ".seg"

func segmentPath(dir string, id uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%020d%s", id, segmentSuffix))
}

// OpenSegment opens (creating if needed) the segment file with the given id.
func OpenSegment(dir string, id uint64) (*os.File, error) {
	f, err := os.OpenFile(segmentPath(dir, id), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open segment %d: %w", id, err)
	}
	// The caller owns f and must Close it.
	return f, nil
}

// ListSegments returns the ids of all segments in dir, oldest first.
func ListSegments(dir string) ([]uint64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ids []uint64
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, segmentSuffix) {
			continue
		}
		id, err := strconv.ParseUint(strings.TrimSuffix(name, segmentSuffix), 10, 64)
		if err != nil {
			continue
		}
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, nil
}

func writeRecord(f *os.File, payload []byte) error {
	var hdr [4]byte
	binary.LittleEndian.PutUint32(hdr[:], uint32(len(payload)))
	if _, err := f.Write(hdr[:]); err != nil {
		return err
	}
	_, err := f.Write(payload)
	return err
}
