//go:build !linux

package cgroup

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAvailableNamesLinux: elsewhere than Linux no group can be made, and the reason a test
// skips with names Linux; New refuses before touching anything.
func TestAvailableNamesLinux(t *testing.T) {
	_, err := Available()
	assert.ErrorContains(t, err, "needs Linux")
	g, err := New(t, "nolinux", Quota{Share: 0.1})
	assert.Nil(t, g)
	assert.ErrorContains(t, err, "needs Linux")
	assert.Regexp(t, `^none: cgroup: needs Linux`, DescribeMachine())
}
