/**
 * metav1.LabelSelector matching, for filtering cached objects (e.g. an agent's pods) without
 * an API call. Semantics follow apimachinery `LabelSelectorAsSelector`: all requirements must
 * hold; `matchLabels` and `In`/`NotIn`/`Exists`/`DoesNotExist`; an empty selector matches
 * everything. `NotIn` and `DoesNotExist` match objects that lack the key.
 */
export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export type Labels = Record<string, string> | undefined;

export function matchesSelector(selector: LabelSelector | undefined, labels: Labels): boolean {
  if (!selector) return true;
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (l[k] !== v) return false;
  }
  for (const req of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(l, req.key);
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
        if (!has || !values.includes(l[req.key]!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(l[req.key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        // An unknown operator is invalid in the API; match nothing rather than everything.
        return false;
    }
  }
  return true;
}

/**
 * The selector in the `labelSelector` query-parameter syntax (`a=b,c in (d,e),!f`), for
 * list-watches narrowed on the server side.
 */
export function selectorToString(selector: LabelSelector): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) parts.push(`${k}=${v}`);
  for (const req of selector.matchExpressions ?? []) {
    const values = [...(req.values ?? [])].sort().join(',');
    switch (req.operator) {
      case 'In':
        parts.push(`${req.key} in (${values})`);
        break;
      case 'NotIn':
        parts.push(`${req.key} notin (${values})`);
        break;
      case 'Exists':
        parts.push(req.key);
        break;
      case 'DoesNotExist':
        parts.push(`!${req.key}`);
        break;
      default:
        throw new Error(`unknown label selector operator ${req.operator}`);
    }
  }
  return parts.join(',');
}
