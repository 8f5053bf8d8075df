package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// runAnnotation marks a ConfigMap as reconciled by one write run; the value is the run's id.
const runAnnotation = "bench.capstan.dev/run"

// benchReconciler reads each ConfigMap from the cache; in write mode it merge-patches the run
// annotation onto it unless it already carries it (idempotent: a second reconcile writes nothing).
type benchReconciler struct {
	client    client.Client
	write     bool
	runID     string
	seen      sync.Map
	remaining atomic.Int64
	done      chan struct{}
}

func (r *benchReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := r.client.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if r.write && cm.Annotations[runAnnotation] != r.runID {
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, runAnnotation, r.runID)
		if err := r.client.Patch(ctx, &cm, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			return ctrl.Result{}, err
		}
	}
	if _, loaded := r.seen.LoadOrStore(req.Name, struct{}{}); !loaded && r.remaining.Add(-1) == 0 {
		close(r.done)
	}
	return ctrl.Result{}, nil
}

// reconcileAll starts a manager with one ConfigMap controller (4 workers) and returns when every
// one of the namespace's count ConfigMaps was reconciled once.
func reconcileAll(namespace string, count int, write bool) (map[string]any, error) {
	started := time.Now()
	ctrl.SetLogger(logr.Discard())
	cfg := ctrl.GetConfigOrDie()
	// controller-runtime asks for protobuf for built-in kinds; BASELINE_WIRE=json makes it speak
	// JSON, as Capstan does, to tell the wire format's share of a row from the rest.
	if os.Getenv("BASELINE_WIRE") == "json" {
		cfg.ContentType = "application/json"
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{namespace: {}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return nil, err
	}
	r := &benchReconciler{
		client: mgr.GetClient(),
		write:  write,
		runID:  fmt.Sprintf("go-%d", started.UnixNano()),
		done:   make(chan struct{}),
	}
	r.remaining.Store(int64(count))
	err = ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(r)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The controller's own informer (one per kind in the cache): when it has synced, the rest is
	// the reconcile phase. Polled every millisecond, finer than client-go's 100 ms sync poll.
	informer, err := mgr.GetCache().GetInformer(ctx, &corev1.ConfigMap{})
	if err != nil {
		return nil, err
	}
	var syncedAt atomic.Int64
	go func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for range tick.C {
			if ctx.Err() != nil {
				return
			}
			if informer.HasSynced() {
				syncedAt.Store(int64(time.Since(started)))
				return
			}
		}
	}()
	failed := make(chan error, 1)
	go func() { failed <- mgr.Start(ctx) }()
	select {
	case <-r.done:
	case err := <-failed:
		return nil, fmt.Errorf("manager stopped: %v", err)
	case <-time.After(10 * time.Minute):
		return nil, fmt.Errorf("%d of %d keys left after 10 min", r.remaining.Load(), count)
	}
	total := time.Since(started)
	synced := time.Duration(syncedAt.Load())
	if synced == 0 {
		return nil, fmt.Errorf("every key reconciled before the informer was seen synced")
	}
	return map[string]any{
		"ms":               float64(total.Microseconds()) / 1000,
		"syncedMs":         float64(synced.Microseconds()) / 1000,
		"reconcilePhaseMs": float64((total - synced).Microseconds()) / 1000,
	}, nil
}
