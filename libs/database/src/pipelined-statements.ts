import { createRequire } from 'node:module';
import type { Statement } from './inline-parameters.js';

const require = createRequire(import.meta.url);
/** pg's conversion of a parameter to its text form (pg/lib/utils), as its own Query binds values. */
const { prepareValue } = require('pg/lib/utils') as { prepareValue(value: unknown): unknown };

/** pg's rows of one statement (pg/lib/result): the columns' parsers from its RowDescription, as its own Query reads them. */
interface RowParser {
  addFields(fields: unknown[]): void;
  parseRow(fields: unknown[]): unknown;
}
const Result = require('pg/lib/result') as new () => RowParser;

/** The parts of pg's wire connection (pg/lib/connection) a submittable writes to. */
export interface WireConnection {
  stream: { cork?(): void; uncork?(): void };
  parse(message: { name: string; text: string; types: number[] }): void;
  bind(message: { statement: string; values: readonly unknown[]; valueMapper: (value: unknown) => unknown }): void;
  execute(message: { portal: string; rows: number }): void;
  describe(message: { type: 'P'; name: string }): void;
  close(message: { type: 'S'; name: string }): void;
  sync(): void;
}

/** A pg client as a submittable reaches it: `query(submittable, callback)` (the callback form keeps the timeout guards). */
export interface SubmittableClient {
  query(submittable: PipelinedStatements, callback: (error: Error | null) => void): unknown;
}

/**
 * Statement texts given a name, process-wide: each is parsed and planned once per connection (PostgreSQL then keeps
 * a generic plan once it is no dearer than the custom ones). Bounded, as every pooled connection keeps each named
 * statement for its life: past MAX_NAMED texts a statement goes unnamed (parsed and planned at every run, as before),
 * and so does one of more than MAX_NAMED_PARAMETERS values, whose text usually grows with its rows (a series' bookings),
 * each row count a text of its own. The prefix is this module's alone (TransactionHost.prepared refuses it).
 */
export const PIPELINED_NAME_PREFIX = 'batch:';
const MAX_NAMED = 500;
const MAX_NAMED_PARAMETERS = 64;
const names = new Map<string, string>();
function nameOf({ text, values }: Statement): string {
  if (values.length > MAX_NAMED_PARAMETERS) return '';
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `${PIPELINED_NAME_PREFIX}${names.size}`;
    names.set(text, name);
  }
  return name ?? '';
}

/** The names each connection has parsed (by pg's wire connection, which lives as long as the server session). */
const parsedOn = new WeakMap<object, Set<string>>();

/**
 * Several statements in one round trip over the extended protocol (a pg submittable, as pg-cursor is): for each, Parse
 * (named, only the first time on this connection), Bind with its values and Execute; then one Sync. The server runs
 * them in order and answers once; the first error skips the rest (inside a transaction, which it aborts). Values are
 * bound, never written into the text, so the server's log shows `$n` (and no values: the role's
 * log_parameter_max_length = 0, migration QuietParameterLog). Rows they return are not read, except the last
 * statement's with `readLast` (`rows`: described, then parsed as pg parses a query's).
 *
 * A named statement is marked parsed on its connection only after a pipeline that used it succeeds; after a failure,
 * every name the pipeline used is parsed again next time, after a Close (which PostgreSQL allows on a name that does
 * not exist): one whose Parse reached the server may exist or not, and one whose cached plan the server refused
 * (a table changed under it) is made anew.
 */
export class PipelinedStatements {
  /** pg reads `text` to describe the active query (and a tracer to name its span). */
  readonly text: string;
  callback?: (error: Error | null) => void;
  /** Something reached the connection (false: the statements were refused before, or pg never submitted them). */
  written = false;
  /** The names this pipeline parses; `used`, every name it runs. */
  private submitted: string[] = [];
  private used: string[] = [];
  private parsed?: Set<string>;
  /** The last statement's rows (`readLast`), once the pipeline has succeeded. */
  readonly rows: unknown[] = [];
  private reading?: RowParser;

  constructor(
    private readonly statements: readonly Statement[],
    private readonly options: { readLast?: boolean } = {},
  ) {
    this.text = statements.map((statement) => statement.text).join(';\n');
  }

  /**
   * Sends the statements (pg calls this when the connection is free). A value pg cannot convert is found before anything
   * is written: the Error returned is reported through handleError, and nothing runs.
   */
  submit(connection: WireConnection): Error | null {
    let bound: unknown[][];
    try {
      bound = this.statements.map(({ values }) => values.map((value) => prepareValue(value)));
    } catch (error) {
      return error as Error;
    }
    const parsed = parsedOn.get(connection) ?? new Set<string>();
    parsedOn.set(connection, parsed);
    this.parsed = parsed;
    connection.stream.cork?.();
    try {
      this.written = true;
      this.statements.forEach((statement, index) => {
        const { text } = statement;
        const name = nameOf(statement);
        if (name !== '') this.used.push(name);
        if (name === '' || !(parsed.has(name) || this.submitted.includes(name))) {
          if (name !== '') {
            connection.close({ type: 'S', name });
            this.submitted.push(name);
          }
          connection.parse({ name, text, types: [] });
        }
        connection.bind({ statement: name, values: bound[index], valueMapper: (value) => value });
        // Only the statement read is described: the one RowDescription that comes back is its, and so are the rows after it.
        if (this.options.readLast && index === this.statements.length - 1) connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(message: { fields: unknown[] }): void {
    this.reading = new Result();
    this.reading.addFields(message.fields);
  }

  handleDataRow(message: { fields: unknown[] }): void {
    if (this.reading) this.rows.push(this.reading.parseRow(message.fields));
  }

  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}

  /** A COPY … FROM STDIN among the statements: refused; the server ignored the Sync sent during the copy and waits for one. */
  handleCopyInResponse(connection: { sendCopyFail(message: string): void; sync(): void }): void {
    connection.sendCopyFail('No source stream defined');
    connection.sync();
  }

  handleCopyData(): void {}

  handleError(error: Error): void {
    for (const name of this.used) this.parsed?.delete(name);
    this.submitted = [];
    this.callback?.(error);
  }

  handleReadyForQuery(): void {
    for (const name of this.submitted) this.parsed?.add(name);
    this.callback?.(null);
  }
}

/**
 * Runs `statements` in one round trip on `client` (see PipelinedStatements). On failure, `written` on the error's
 * pipeline says whether anything reached the server.
 */
export function runPipelined(client: SubmittableClient, pipeline: PipelinedStatements): Promise<void> {
  return new Promise((resolve, reject) => {
    client.query(pipeline, (error) => (error ? reject(error) : resolve()));
  });
}
