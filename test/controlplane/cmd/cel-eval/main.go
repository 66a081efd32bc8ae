// Command cel-eval evaluates CEL health expressions against one Kubernetes object (JSON on
// stdin) with github.com/google/cel-go, in the environment Flux's kustomize-controller and
// helm-controller use for `healthCheckExprs` (fluxcd/pkg runtime/cel: optional types, the
// strings, sets and encoders extensions, UTC, cross-type numeric comparisons; expressions are
// parsed, not type-checked, and the object's top-level fields are the variables).
//
//	cel-eval -expr 'status.?conditions.orValue([]).size() > 0'       prints true or false
//	cel-eval -current C [-inProgress I] [-failed F]                   prints Current, InProgress or Failed
//
// The second form applies Flux's order (RFC 0009): status.observedGeneration present and
// different from metadata.generation is InProgress; then inProgress, failed, current, first
// true wins; none true is InProgress. In that form an evaluation error (an expression that
// touches a missing field, e.g. `status` on an object without one) prints "Unknown <error>",
// as Flux's generic status reader turns the evaluator's error into the Unknown status (the
// wait goes on). With -expr, an evaluation error prints "error: ..." and exits 1.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func program(expr string) (cel.Program, error) {
	env, err := cel.NewEnv(
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		ext.Strings(),
		ext.Sets(),
		ext.Encoders(),
	)
	if err != nil {
		return nil, err
	}
	ast, issues := env.Parse(expr)
	if issues != nil && issues.Err() != nil {
		return nil, fmt.Errorf("parse %q: %s", expr, issues.String())
	}
	return env.Program(ast, cel.EvalOptions(cel.OptOptimize), cel.InterruptCheckFrequency(100))
}

func evalBool(expr string, obj map[string]any) (bool, error) {
	prg, err := program(expr)
	if err != nil {
		return false, err
	}
	val, _, err := prg.Eval(obj)
	if err != nil {
		return false, fmt.Errorf("evaluate %q: %w", expr, err)
	}
	b, ok := val.(types.Bool)
	if !ok {
		return false, fmt.Errorf("%q is not a boolean: %v", expr, val)
	}
	return bool(b), nil
}

func fail(err error) {
	fmt.Println("error:", err)
	os.Exit(1)
}

func main() {
	single := flag.String("expr", "", "evaluate one boolean expression and print it")
	current := flag.String("current", "", "Flux healthCheckExprs current")
	inProgress := flag.String("inProgress", "", "Flux healthCheckExprs inProgress")
	failed := flag.String("failed", "", "Flux healthCheckExprs failed")
	flag.Parse()

	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// Integers stay int64, as in the unstructured objects Flux evaluates.
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		fmt.Fprintln(os.Stderr, "input is not a Kubernetes object:", err)
		os.Exit(2)
	}
	obj := u.UnstructuredContent()

	if *single != "" {
		b, err := evalBool(*single, obj)
		if err != nil {
			fail(err)
		}
		fmt.Println(b)
		return
	}
	if *current == "" {
		fmt.Fprintln(os.Stderr, "need -expr or -current")
		os.Exit(2)
	}
	if og, ok, _ := unstructured.NestedInt64(obj, "status", "observedGeneration"); ok {
		if g, ok, _ := unstructured.NestedInt64(obj, "metadata", "generation"); ok && g != og {
			fmt.Println("InProgress")
			return
		}
	}
	for _, e := range []struct{ expr, status string }{
		{*inProgress, "InProgress"},
		{*failed, "Failed"},
		{*current, "Current"},
	} {
		if e.expr == "" {
			continue
		}
		b, err := evalBool(e.expr, obj)
		if err != nil {
			fmt.Println("Unknown", err)
			return
		}
		if b {
			fmt.Println(e.status)
			return
		}
	}
	fmt.Println("InProgress")
}
