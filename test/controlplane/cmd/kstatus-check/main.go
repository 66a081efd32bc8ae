// Command kstatus-check reads Kubernetes objects (a JSON object, or a List) from stdin and
// prints, one line per object, "<namespace>/<name> <status> <message>" as computed by the real
// kstatus library (sigs.k8s.io/cli-utils/pkg/kstatus/status): the rules Flux uses to judge
// health. Tests use it to prove the A2AAgent status is read as intended.
package main

import (
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

func main() {
	data, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// UnmarshalJSON keeps integers as int64, as the API machinery expects (plain
	// encoding/json would make metadata.generation a float64).
	var items []*unstructured.Unstructured
	probe := &unstructured.Unstructured{}
	if err := probe.UnmarshalJSON(data); err == nil && !probe.IsList() {
		items = append(items, probe)
	} else {
		list := &unstructured.UnstructuredList{}
		if err := list.UnmarshalJSON(data); err != nil {
			fmt.Fprintln(os.Stderr, "input is neither a Kubernetes object nor a List:", err)
			os.Exit(2)
		}
		for i := range list.Items {
			items = append(items, &list.Items[i])
		}
	}
	for _, u := range items {
		res, err := status.Compute(u)
		if err != nil {
			fmt.Fprintln(os.Stderr, "compute:", err)
			os.Exit(2)
		}
		fmt.Printf("%s/%s %s %s\n", u.GetNamespace(), u.GetName(), res.Status, res.Message)
	}
}
