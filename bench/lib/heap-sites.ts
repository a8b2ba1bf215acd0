/**
 * Bytes by allocation site from V8's sampling heap profile (`HeapProfiler.getSamplingProfile`), for
 * the bench tools that ask what a request allocates (probe-alloc.ts, loop-stretches.ts). A site is
 * the nearest `depth` frames, innermost first, with paths cut to node_modules/… or src|test|bench/….
 */
export interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** Every sampled byte in all, and by site, largest first. */
export function bytesBySite(head: SamplingNode, depth: number): { total: number; sites: [string, number][] } {
  const sites = new Map<string, number>();
  let total = 0;
  const walk = (node: SamplingNode, stack: string[]) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url.replace(/^.*\/(node_modules\/)/, "$1").replace(/^.*\/(src|test|bench)\//, "$1/");
    const here = url ? [...stack, `${functionName || "(anon)"} ${file}:${lineNumber + 1}`] : stack;
    if (node.selfSize > 0) {
      total += node.selfSize;
      const key = here.slice(-depth).reverse().join(" < ") || functionName;
      sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, here);
  };
  walk(head, []);
  return { total, sites: [...sites].sort((a, b) => b[1] - a[1]) };
}
