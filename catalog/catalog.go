// Package catalog is the registry of the claims this repository tests: one entry per claim, with
// its statement, where it was published and the figures published with it. Tests name claims by
// their IDs; results quote the catalog's figures.
package catalog

import "fmt"

// Kind says where a claim can be settled.
type Kind string

// The kinds of claims.
const (
	Local Kind = "local" // settled on this machine
	Live  Kind = "live"  // needs AWS Lambda
	Both  Kind = "both"  // a local experiment now, and live with -tags lambda
)

// Source is where a claim was published.
type Source struct {
	Title  string `json:"title"`
	Author string `json:"author"`
	Date   string `json:"date"`          // YYYY-MM-DD
	URL    string `json:"url,omitempty"` // its public address, where it has one
}

// Claim is one registered claim.
type Claim struct {
	ID        string `json:"id"`
	Statement string `json:"statement"`
	Kind      Kind   `json:"kind"`
	Beyond    bool   `json:"beyond,omitempty"`
	Source    Source `json:"source"`
	Published string `json:"published"`
	Pending   string `json:"pending,omitempty"`
}

// All returns every claim in ID order.
func All() []Claim { return append([]Claim(nil), entries...) }

// Lookup returns the claim with id.
func Lookup(id string) (Claim, error) {
	for _, c := range entries {
		if c.ID == id {
			return c, nil
		}
	}
	return Claim{}, fmt.Errorf("claim %q is not in the catalog", id)
}
