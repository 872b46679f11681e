// The render queue's admission: a workspace's share (429 rate_limit_exceeded with retryAfterSeconds), the
// service's share (503 render_queue_full), slots given back once (a double release frees nothing twice).
import { describe, expect, test } from 'vitest';
import { RenderQueue, RenderQueueFull, WorkspaceRenderQueueFull } from '../../infra/visuals/queue.js';

describe('render queue', () => {
  test('a workspace past its share is refused with 429 and a retry hint; others still get in', () => {
    let now = 0;
    const queue = new RenderQueue({ perWorkspace: 2, overall: 10 }, () => now);
    const held = [queue.admit('a'), queue.admit('a')];
    const refused = (() => {
      try {
        queue.admit('a');
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(WorkspaceRenderQueueFull);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect((refused as WorkspaceRenderQueueFull).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(() => queue.admit('b')).not.toThrow();
    now = 9_000;
    held[0]!.release();
    expect(() => queue.admit('a')).not.toThrow();
  });

  test('past the overall share every workspace gets 503; a double release frees one slot only', () => {
    const queue = new RenderQueue({ perWorkspace: 5, overall: 2 });
    const first = queue.admit('a');
    queue.admit('b');
    expect(() => queue.admit('c')).toThrow(RenderQueueFull);
    expect(() => queue.admit('c')).toThrow(
      expect.objectContaining({ status: 503, code: 'render_queue_full' }),
    );
    first.release();
    first.release();
    expect(queue.admitted).toBe(1);
    queue.admit('c');
    expect(() => queue.admit('d')).toThrow(RenderQueueFull);
  });
});
