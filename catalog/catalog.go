// Package catalog is the registry of the claims this repository turns into experiments: every
// claim ID (W1-W12, T1-T9, P1-P11) with the claim in one sentence, where it was published, the
// publisher's own figures, and whether it is settled on this machine, needs AWS Lambda, or both.
//
// It is the one place a claim is written down, and Tests the one list of the claim tests that
// decide them. Tests name claims by ID and quote the published figures from here, and the
// package's own tests keep the repository in step with it: every claim has a claim test under
// experiments/ unless it says why not (Pending), every claim test listed exists, no test names a
// claim the catalog lacks, and the Makefile's selections of claim tests are those of Tests.
// README.md's claim tables are generated from it (ReadmeTables): `go generate ./catalog` writes
// them, and TestReadmeTablesAreGenerated fails when they are stale.
package catalog

//go:generate go run writereadme.go

import (
	"fmt"
	"slices"
)

// Kind says where a claim can be settled.
type Kind string

// The kinds of claim.
const (
	Local Kind = "local" // settled on this machine
	Live  Kind = "live"  // needs AWS Lambda
	Both  Kind = "both"  // a local experiment now, and live with -tags lambda
)

// Source is the publication a claim comes from.
type Source struct {
	Title  string `json:"title" jsonschema:"minLength=1"` // the article's title (as published; add an English gloss in parentheses when it is not English)
	Author string `json:"author" jsonschema:"minLength=1"`
	Date   string `json:"date,omitempty" jsonschema:"pattern=^[0-9]{4}-[0-9]{2}-[0-9]{2}$"` // YYYY-MM-DD; empty where the source gives none
	URL    string `json:"url,omitempty" jsonschema:"pattern=^https://"`                     // its public address, where it has one
}

// Claim is one published claim, or a question its article left open, under its ID.
type Claim struct {
	ID        string `json:"id"`        // W1..W12, T1..T9, P1..P11
	Statement string `json:"statement"` // the claim in one sentence
	Kind      Kind   `json:"kind"`
	Beyond    bool   `json:"beyond,omitempty"` // the article did not measure it: a question it left open, or a control
	Source    Source `json:"source"`
	Published string `json:"published"`         // the article's own figures, quoted; "" where it published none
	Pending   string `json:"pending,omitempty"` // why no test decides it yet; "" once one does
	// VersionChange is why the claim's verdict differs between runtime versions, with the release
	// that changed it, where the runtime matrix (`make matrix`) found a difference and its cause
	// is known; "" otherwise.
	VersionChange string `json:"versionChange,omitempty"`
	// Explained says what makes this repository's figure differ from the published one, and
	// which part of the claim's result measures it, where the difference is explained; ""
	// otherwise. It names no figure of a run: those are in the result.
	Explained string `json:"explained,omitempty"`
	// TestsNote is a remark on how its tests decide it, which the README's claim tables print in
	// parentheses after those tests (ReadmeTables); "" where there is none.
	TestsNote string `json:"testsNote,omitempty"`
}

// All returns every claim, in order W1..W12, T1..T9, P1..P11. The slice is the caller's own:
// changing it does not change the catalog.
func All() []Claim { return slices.Clone(entries) }

// Lookup returns the claim with the given ID, or an error naming the ID when there is none.
func Lookup(id string) (Claim, error) {
	i := slices.IndexFunc(entries, func(c Claim) bool { return c.ID == id })
	if i < 0 {
		return Claim{}, fmt.Errorf("catalog: no claim %q (IDs are W1-W12, T1-T9, P1-P11)", id)
	}
	return entries[i], nil
}
