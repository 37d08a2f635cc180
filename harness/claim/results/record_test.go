package results

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGroupIsTheFamilysFirstWord(t *testing.T) {
	for family, want := range map[string]string{"eventloop": "eventloop", "eventloop.routing": "eventloop", "coldstart.phases": "coldstart"} {
		assert.Equal(t, want, Group(family), "Group(%q)", family)
	}
}
