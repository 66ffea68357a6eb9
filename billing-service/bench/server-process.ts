import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The card-capture host next to the billing API, in the same process on the same
 * database handle (as `npm start` runs them). Its CAPTCHA check is the real
 * SiteverifyCaptcha pointed at a local stand-in (`siteverify`), or the
 * in-process DevCaptcha (`dev`).
 */
export type CaptureSpec = { captcha: 'siteverify'; verifyUrl: string; secret: string } | { captcha: 'dev' };

/** What the child process serves (see server.ts). */
export type ServerSpec =
  | { kind: 'bare' }
  /** Bare Fastify with one pg pool: GET /x/:id answers one prepared point select (the floor of a database-backed GET). */
  | { kind: 'bare-pg'; databaseUrl: string }
  | {
      kind: 'app';
      database: { databaseUrl: string } | { dataDir: string };
      rateLimitStore: 'postgres' | 'memory';
      capture?: CaptureSpec;
      /** A catalogue file of the bench's own (the usage bench's metered plan); default the demo's. */
      catalogFile?: string;
      /** Test clocks on (POST /v1/testclock/advance runs the billing clock for an account: the renewal bench). */
      testClocks?: boolean;
    };

export type ServerMessage =
  | { type: 'listening'; port: number; capturePort?: number; startMs: number }
  | { type: 'failed'; message: string };

export interface RunningServer {
  url: string;
  /** The card-capture host, when the spec asked for one. */
  captureUrl?: string;
  pid: number;
  startMs: number;
  stop(): Promise<void>;
}

const SERVER_ENTRY = fileURLToPath(new URL('./server.ts', import.meta.url));

/**
 * Starts the server under test in its own Node process (TypeScript through tsx,
 * like `npm start`), so that it has a core of its own rather than sharing the
 * event loop with the load generator. Resolves once it listens.
 */
export async function startServer(spec: ServerSpec, timeoutMs = 120_000): Promise<RunningServer> {
  // `tsx bench/run.ts` runs node with tsx's loader flags; the child inherits them, or gets them here
  const execArgv = process.execArgv.some((a) => a.includes('tsx')) ? [...process.execArgv] : [...process.execArgv, '--import', 'tsx'];
  // BENCH_PROFILE_DIR=<dir>: every server process writes a V8 CPU profile there when it stops
  const profileDir = process.env.BENCH_PROFILE_DIR;
  if (profileDir) execArgv.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  const child = fork(SERVER_ENTRY, [JSON.stringify(spec)], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    if (child.connected) child.send({ type: 'stop' });
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  };

  try {
    const ready = await waitForListening(child, timeoutMs);
    // a process that sent its port over IPC was spawned, so it has a pid
    if (child.pid === undefined) throw new Error('the server process has no pid');
    return {
      url: `http://127.0.0.1:${ready.port}`,
      ...(ready.capturePort ? { captureUrl: `http://127.0.0.1:${ready.capturePort}` } : {}),
      pid: child.pid,
      startMs: ready.startMs,
      stop,
    };
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  }
}

function waitForListening(child: ChildProcess, timeoutMs: number): Promise<{ port: number; capturePort?: number; startMs: number }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server process did not listen within ${timeoutMs / 1000} s`)), timeoutMs);
    child.on('message', (message: ServerMessage) => {
      clearTimeout(timer);
      if (message.type === 'listening') resolve({ port: message.port, capturePort: message.capturePort, startMs: message.startMs });
      else reject(new Error(`the server process failed to start: ${message.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server process exited before listening (code ${code}, signal ${signal})`));
    });
  });
}
