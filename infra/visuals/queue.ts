// The render queue's bounds: renders admitted per workspace and overall (queued or running), refused at the
// door with 429 (the workspace's share is full) or 503 (the service's is) before anything is loaded, generated,
// charged or rendered; and the errors of the pool's per-task deadline and waiting room.
import { ServiceUnavailable, TooManyRequests } from '../../domain/shared/errors.js';

export interface RenderQueueLimits {
  /** Renders of one workspace admitted at once (queued or running). */
  perWorkspace: number;
  /** Renders admitted at once over every workspace. */
  overall: number;
}

export const defaultRenderQueueLimits: RenderQueueLimits = { perWorkspace: 4, overall: 32 };
/** How long one render task (an image, or one slide of a carousel) may run on its thread by default. */
export const defaultRenderTaskDeadlineMs = 20_000;

/** A render holds one of these from admission until it is answered; release is idempotent. */
export interface RenderSlot {
  release(): void;
}

/** 429: the workspace already has its share of renders queued or running. */
export class WorkspaceRenderQueueFull extends TooManyRequests {}

/** 503: the service has as many renders queued or running as it takes. */
export class RenderQueueFull extends ServiceUnavailable {
  constructor(message: string) {
    super(message, 'render_queue_full');
  }
}

/** 503: a render task ran past its deadline; its thread was ended (the pool starts another). */
export class RenderDeadlineExceeded extends ServiceUnavailable {
  constructor(readonly deadlineMs: number) {
    super(
      `The render did not finish within ${Math.round(deadlineMs / 100) / 10} s and was stopped; nothing was stored`,
      'render_timeout',
    );
  }
}

/** Counts admitted renders per workspace and overall; `retryAfterSeconds` from how long renders have been taking. */
export class RenderQueue {
  private readonly byWorkspace = new Map<string, number>();
  private total = 0;
  /** Moving average of an admitted render's whole time (queue and run), for Retry-After. */
  private averageMs = 2_000;

  constructor(
    private readonly limits: RenderQueueLimits = defaultRenderQueueLimits,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get admitted(): number {
    return this.total;
  }

  /** Admits one render of `workspace`, or throws WorkspaceRenderQueueFull (429) or RenderQueueFull (503). */
  admit(workspace: string): RenderSlot {
    const mine = this.byWorkspace.get(workspace) ?? 0;
    if (mine >= this.limits.perWorkspace)
      throw new WorkspaceRenderQueueFull(
        `This workspace already has ${mine} renders queued or running (at most ${this.limits.perWorkspace}); ` +
          'retry when one has finished',
        Math.max(1, Math.ceil(this.averageMs / 1000)),
      );
    if (this.total >= this.limits.overall)
      throw new RenderQueueFull(
        `The renderer is busy (${this.total} renders queued or running); nothing was rendered, retry shortly`,
      );
    this.byWorkspace.set(workspace, mine + 1);
    this.total++;
    const started = this.now();
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.byWorkspace.get(workspace) ?? 1) - 1;
        if (left > 0) this.byWorkspace.set(workspace, left);
        else this.byWorkspace.delete(workspace);
        this.averageMs = 0.8 * this.averageMs + 0.2 * Math.max(0, this.now() - started);
      },
    };
  }
}
