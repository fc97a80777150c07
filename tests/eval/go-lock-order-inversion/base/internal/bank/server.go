package bank

import (
	"encoding/json"
	"net/http"
)

type Server struct {
	bank *Bank
}

func NewServer(b *Bank) *Server {
	return &Server{bank: b}
}

func (s *Server) handleBalance(w http.ResponseWriter, r *http.Request) {
	bal, err := s.bank.Balance(r.PathValue("id"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]int64{"balance_cents": bal})
}

func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /accounts/{id}/balance", s.handleBalance)
}
