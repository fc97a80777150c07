package inventory

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
)

type reserveRequest struct {
	Items []Item `json:"items"`
}

func (s *Service) HandleReserve(w http.ResponseWriter, r *http.Request) {
	orderID, err := strconv.ParseInt(r.PathValue("order"), 10, 64)
	if err != nil {
		http.Error(w, "bad order id", http.StatusBadRequest)
		return
	}
	var req reserveRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	switch err := s.Reserve(r.Context(), orderID, req.Items); {
	case errors.Is(err, ErrOutOfStock):
		http.Error(w, err.Error(), http.StatusConflict)
	case err != nil:
		http.Error(w, "internal error", http.StatusInternalServerError)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}
