// Command kstatus-check reads Kubernetes objects (a JSON object, or a List) from stdin and
// prints, one line per object, "<namespace>/<name> <status> <message>" as computed by the real
// kstatus library (sigs.k8s.io/cli-utils/pkg/kstatus/status): the rules Flux uses to judge
// health. Tests use it to prove the A2AAgent status is read as intended.
package main

import (
	"encoding/json"
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
	var obj map[string]interface{}
	if err := json.Unmarshal(data, &obj); err != nil {
		fmt.Fprintln(os.Stderr, "input is not a JSON object:", err)
		os.Exit(2)
	}
	items := []map[string]interface{}{obj}
	if list, ok := obj["items"].([]interface{}); ok {
		items = nil
		for _, it := range list {
			if m, ok := it.(map[string]interface{}); ok {
				items = append(items, m)
			}
		}
	}
	for _, it := range items {
		u := &unstructured.Unstructured{Object: it}
		res, err := status.Compute(u)
		if err != nil {
			fmt.Fprintln(os.Stderr, "compute:", err)
			os.Exit(2)
		}
		fmt.Printf("%s/%s %s %s\n", u.GetNamespace(), u.GetName(), res.Status, res.Message)
	}
}
