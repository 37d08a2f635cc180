package catalog

var entries []Claim
