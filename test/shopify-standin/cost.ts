// Query cost and the leaky bucket (shopify.dev "GraphQL Admin API rate limits"): scalars and enums cost 0,
// objects 1, a connection 2 plus `first` times the cost of one node, a mutation 10. The requested cost is
// taken from the bucket before running; the difference to the actual cost (from the nodes returned) is
// given back after.
import {
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isLeafType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  valueFromAST,
} from "graphql";

type Data = Record<string, any> | null | undefined;

export function queryCost(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  data?: Data,
): number {
  if (operation.operation === "mutation") return 10 * operation.selectionSet.selections.length;
  const measured = data !== undefined;

  const selectionCost = (set: SelectionSetNode, parent: GraphQLNamedType, value: Data): number => {
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT || selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment =
          selection.kind === Kind.FRAGMENT_SPREAD ? fragments[selection.name.value] : selection;
        const typeName = fragment?.typeCondition?.name.value;
        const type = typeName ? schema.getType(typeName) : parent;
        if (fragment && type) total += selectionCost(fragment.selectionSet, type, value);
        continue;
      }
      const field = ("getFields" in parent ? parent.getFields() : {})[selection.name.value] as
        | GraphQLField<unknown, unknown>
        | undefined;
      if (!field || !selection.selectionSet) continue;
      const type = getNamedType(field.type);
      if (isLeafType(type)) continue;
      const child = value?.[selection.alias?.value ?? selection.name.value];
      if (measured && child == null) continue;
      if (!type.name.endsWith("Connection")) {
        const one = Array.isArray(child) ? child[0] : child;
        total += 1 + selectionCost(selection.selectionSet, type, one);
        continue;
      }
      const nodeType = getNamedType((type as any).getFields().nodes.type) as unknown as GraphQLNamedType;
      const nodeSets = selection.selectionSet.selections.flatMap((s) => {
        if (s.kind !== Kind.FIELD || !s.selectionSet) return [];
        if (s.name.value === "nodes")
          return [{ set: s.selectionSet, of: (c: any, i: number) => c?.nodes?.[i] }];
        if (s.name.value !== "edges") return [];
        const node = s.selectionSet.selections.find((n) => n.kind === Kind.FIELD && n.name.value === "node");
        return node?.kind === Kind.FIELD && node.selectionSet
          ? [{ set: node.selectionSet, of: (c: any, i: number) => c?.edges?.[i]?.node }]
          : [];
      });
      const nodeCost = (i: number) =>
        1 + Math.max(0, ...nodeSets.map((n) => selectionCost(n.set, nodeType, n.of(child, i))));
      if (measured) {
        const count = child?.edges?.length ?? child?.nodes?.length ?? 0;
        total += 2 + Array.from({ length: count }, (_, i) => nodeCost(i)).reduce((a, b) => a + b, 0);
      } else {
        const argument = (name: string) => {
          const node = selection.arguments?.find((a) => a.name.value === name);
          const def = field.args.find((a) => a.name === name);
          return node && def ? (valueFromAST(node.value, def.type, variables) as number | null) : null;
        };
        total += 2 + (argument("first") ?? argument("last") ?? 0) * nodeCost(-1);
      }
    }
    return total;
  };

  return selectionCost(operation.selectionSet, schema.getQueryType()!, data);
}

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

export class CostBucket {
  private level: number;
  private at: number;
  /** Points the bucket gave (taken less refunds): what the app's calls actually cost. */
  spent = 0;
  /** Requests refused THROTTLED. */
  throttled = 0;

  constructor(
    readonly maximumAvailable: number,
    readonly restoreRate: number,
    private readonly now: () => number,
  ) {
    this.level = maximumAvailable;
    this.at = now();
  }

  private refill(): void {
    const t = this.now();
    this.level = Math.min(this.maximumAvailable, this.level + ((t - this.at) / 1000) * this.restoreRate);
    this.at = t;
  }

  take(points: number): boolean {
    this.refill();
    if (this.level < points) {
      this.throttled++;
      return false;
    }
    this.level -= points;
    this.spent += points;
    return true;
  }

  refund(points: number): void {
    this.refill();
    this.spent -= points;
    this.level = Math.min(this.maximumAvailable, this.level + points);
  }

  status(): ThrottleStatus {
    this.refill();
    return {
      maximumAvailable: this.maximumAvailable,
      currentlyAvailable: Math.floor(this.level),
      restoreRate: this.restoreRate,
    };
  }
}
