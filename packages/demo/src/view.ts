/**
 * The live view: on a terminal, a table of groups and nodes redrawn in place; elsewhere (CI logs,
 * pipes), one line per phase change, so the output reads as a log.
 */
import type { GroupView, NodePhase, NodeView, Transition } from './observer.js';

const PHASE_MARK: Record<NodePhase, string> = {
  joining: '+',
  'up to date': '·',
  'needs reboot': '!',
  granted: '→',
  draining: '↓',
  rebooting: '↻',
  'back up': '↑',
  updated: '✓',
};

/** Seconds as `m:ss`. */
export function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** The width of a column of node names: the longest and a space, at least 16. */
const nameWidth = (names: string[]) => Math.max(15, ...names.map((n) => n.length)) + 1;

/** The group table: nodes, order, budget, disrupted now and at most. */
export function groupTable(groups: GroupView[]): string[] {
  const lines = [
    `  ${'group'.padEnd(15)}${'nodes'.padStart(5)}${'order'.padStart(7)}${'budget'.padStart(8)}${'now'.padStart(6)}${'most'.padStart(6)}`,
  ];
  for (const g of groups) {
    const over = g.most > g.budget ? '  OVER BUDGET' : '';
    lines.push(
      `  ${g.name.padEnd(15)}${String(g.nodes.length).padStart(5)}${String(g.order).padStart(7)}${`${g.budget}`.padStart(8)}${String(g.current).padStart(6)}${String(g.most).padStart(6)}${over}`,
    );
  }
  return lines;
}

/** The node table. */
export function nodeTable(nodes: NodeView[]): string[] {
  const width = nameWidth(nodes.map((n) => n.name));
  const lines = [
    `  ${'node'.padEnd(width)}${'group'.padEnd(15)}${'state'.padEnd(16)}${'os version'.padEnd(12)}boots`,
  ];
  for (const n of nodes) {
    lines.push(
      `  ${n.name.padEnd(width)}${n.group.padEnd(15)}${`${PHASE_MARK[n.phase]} ${n.phase}`.padEnd(16)}${n.version.padEnd(12)}${n.boots}`,
    );
  }
  return lines;
}

/** Draws the view; see the file comment. */
export class LiveView {
  private drawnLines = 0;
  private board: string[] = [];
  private log: string[] = [];
  /** Narration said while a table was drawn: printed under it when the act ends. */
  private narration: string[] = [];

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly title: string,
    private readonly interactive = Boolean(out.isTTY),
  ) {}

  /** A line of narration (setup steps, the update): printed now, or kept under the table. */
  say(line: string): void {
    if (this.interactive && this.drawnLines > 0) {
      this.log.push(line);
      this.narration.push(line);
      return;
    }
    this.out.write(`${line}\n`);
  }

  /** A change (a machine's phase, a rollout's progress): a log line, or kept under the table. */
  line(text: string): void {
    if (this.interactive) this.log.push(text);
    else this.out.write(`${text}\n`);
  }

  /** A node changed phase. */
  transition(t: Transition, groups: GroupView[]): void {
    const g = groups.find((x) => x.nodes.includes(t.node));
    const budget = g ? `  [${g.name} ${g.current}/${g.budget}]` : '';
    this.line(
      `  ${clock(t.atMs).padStart(5)}  ${t.node.padEnd(nameWidth(groups.flatMap((x) => x.nodes)))}${(t.from ?? '-').padEnd(14)}→ ${t.to}${budget}`,
    );
  }

  /** Redraws `lines` in place under the title, with the status and the latest changes (terminal only). */
  redraw(lines: string[], elapsedMs: number, status: string): void {
    if (!this.interactive) return;
    this.board = [`${this.title}   elapsed ${clock(elapsedMs)}`, '', ...lines];
    // A line wider than the terminal wraps and would throw off the count of lines to redraw.
    const width = Math.max(20, this.out.columns ?? 200);
    const all = [...this.board, '', `  ${status}`, ...this.log.slice(-6)].map((l) =>
      l.length > width ? `${l.slice(0, width - 1)}…` : l,
    );
    const up = this.drawnLines > 0 ? `\x1b[${this.drawnLines}F` : '';
    this.out.write(`${up}\x1b[J${all.join('\n')}\n`);
    this.drawnLines = all.length;
  }

  /** Redraws the group and node tables (terminal only). */
  draw(nodes: NodeView[], groups: GroupView[], elapsedMs: number, status: string): void {
    this.redraw([...groupTable(groups), '', ...nodeTable(nodes)], elapsedMs, status);
  }

  /** Ends an act's table: it stays on screen as last drawn, followed by the narration it kept. */
  settle(): void {
    if (!this.interactive || this.drawnLines === 0) return;
    this.out.write(`\x1b[${this.drawnLines}F\x1b[J${[...this.board, '', ...this.narration].join('\n')}\n`);
    this.drawnLines = 0;
    this.board = [];
    this.log = [];
    this.narration = [];
  }
}
