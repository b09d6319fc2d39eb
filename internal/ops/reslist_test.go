package ops

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/agent"
)

type fakeLister struct {
	res []agent.Resource
	err error
}

func (f fakeLister) Resources(context.Context, string) ([]agent.Resource, error) { return f.res, f.err }

type fakeResolver struct {
	st  agent.ResourceStates
	err error
}

func (f fakeResolver) ResourceStates(context.Context, string, bool) (agent.ResourceStates, error) {
	return f.st, f.err
}

// TestResources: the listing carries RPC's resources and pi config's
// states; a failure to resolve is the states' error, not the listing's,
// and RPC's failure is the listing's as it is.
func TestResources(t *testing.T) {
	dir, cwd := t.TempDir(), t.TempDir()
	res := []agent.Resource{{Name: "review", Kind: "skill"}}
	st := agent.ResourceStates{Global: []agent.ResourceState{}}
	errResolve, errList := errors.New("pi config failed"), errors.New("pi is gone")
	ctx := context.Background()

	got, err := Resources(ctx, fakeLister{res: res}, fakeResolver{st: st}, dir, cwd)
	if err != nil || !cmp.Equal(got.Resources, res) || got.States == nil || got.StatesError != "" {
		t.Errorf("resolved: %+v, %v", got, err)
	}
	got, err = Resources(ctx, fakeLister{res: res}, fakeResolver{err: errResolve}, dir, cwd)
	if err != nil || !cmp.Equal(got.Resources, res) || got.States != nil || got.StatesError != errResolve.Error() {
		t.Errorf("not resolved: %+v, %v", got, err)
	}
	if _, err := Resources(ctx, fakeLister{err: errList}, fakeResolver{st: st}, dir, cwd); !errors.Is(err, errList) {
		t.Errorf("RPC failed: %v", err)
	}
}
