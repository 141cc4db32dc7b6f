/**
 * The runner protocol of Gitea Actions (packages `runner.v1` and `ping.v1`), described here in a
 * few lines per message instead of generated code: field numbers and types as act_runner speaks
 * them. The descriptors built from this table serve the connect-rpc handlers (binary protobuf and
 * JSON alike) and the conformance runner of the tests.
 */
import { createFileRegistry, type DescMessage, type DescService } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, file_google_protobuf_struct, file_google_protobuf_timestamp } from '@bufbuild/protobuf/wkt';
import { create, type JsonObject, type JsonValue, type Message } from '@bufbuild/protobuf';
import { WireType } from '@bufbuild/protobuf/wire';

/** A field: number, type (a scalar, an enum or message of the package, `.google.protobuf.X`, or `map:<value type>`), and `rep` for repeated. */
type Field = [number, string, 'rep'?];
type Messages = Record<string, Record<string, Field>>;

const RUNNER: Messages = {
  RegisterRequest: { name: [1, 'string'], token: [2, 'string'], agent_labels: [3, 'string', 'rep'], custom_labels: [4, 'string', 'rep'], version: [5, 'string'], labels: [6, 'string', 'rep'], ephemeral: [7, 'bool'] },
  RegisterResponse: { runner: [1, 'Runner'] },
  DeclareRequest: { version: [1, 'string'], labels: [2, 'string', 'rep'] },
  DeclareResponse: { runner: [1, 'Runner'] },
  FetchTaskRequest: { tasks_version: [1, 'int64'] },
  FetchTaskResponse: { task: [1, 'Task'], tasks_version: [2, 'int64'] },
  UpdateTaskRequest: { state: [1, 'TaskState'], outputs: [2, 'map:string'] },
  UpdateTaskResponse: { state: [1, 'TaskState'], sent_outputs: [2, 'string', 'rep'] },
  UpdateLogRequest: { task_id: [1, 'int64'], index: [2, 'int64'], rows: [3, 'LogRow', 'rep'], no_more: [4, 'bool'] },
  UpdateLogResponse: { ack_index: [1, 'int64'] },
  Runner: {
    id: [1, 'int64'], uuid: [2, 'string'], token: [3, 'string'], name: [4, 'string'], status: [5, 'RunnerStatus'],
    agent_labels: [6, 'string', 'rep'], custom_labels: [7, 'string', 'rep'], version: [8, 'string'], labels: [9, 'string', 'rep'], ephemeral: [10, 'bool'],
  },
  Task: {
    id: [1, 'int64'], workflow_payload: [2, 'bytes'], context: [3, '.google.protobuf.Struct'], secrets: [4, 'map:string'],
    machine: [5, 'string'], needs: [6, 'map:TaskNeed'], vars: [7, 'map:string'],
  },
  TaskNeed: { outputs: [1, 'map:string'], result: [2, 'Result'] },
  TaskState: { id: [1, 'int64'], result: [2, 'Result'], started_at: [3, '.google.protobuf.Timestamp'], stopped_at: [4, '.google.protobuf.Timestamp'], steps: [5, 'StepState', 'rep'] },
  StepState: { id: [1, 'int64'], result: [2, 'Result'], started_at: [3, '.google.protobuf.Timestamp'], stopped_at: [4, '.google.protobuf.Timestamp'], log_index: [5, 'int64'], log_length: [6, 'int64'] },
  LogRow: { time: [1, '.google.protobuf.Timestamp'], content: [2, 'string'] },
};
const RUNNER_ENUMS: Record<string, string[]> = {
  RunnerStatus: ['RUNNER_STATUS_UNSPECIFIED', 'RUNNER_STATUS_IDLE', 'RUNNER_STATUS_ACTIVE', 'RUNNER_STATUS_OFFLINE'],
  Result: ['RESULT_UNSPECIFIED', 'RESULT_SUCCESS', 'RESULT_FAILURE', 'RESULT_CANCELLED', 'RESULT_SKIPPED'],
};

// FieldDescriptorProto types and labels.
const SCALAR: Record<string, number> = { int64: 3, bool: 8, string: 9, bytes: 12 };
const MESSAGE = 11;
const ENUM = 14;
const OPTIONAL = 1;
const REPEATED = 3;

/** The FieldDescriptorProto of one field (and the map entry type it needs, if any). */
function fieldProto(pkg: string, enums: Record<string, string[]>, msg: string, name: string, [number, type, rep]: Field) {
  const jsonName = name.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase());
  const typeOf = (t: string) => (t in SCALAR ? { type: SCALAR[t] } : { type: t in enums ? ENUM : MESSAGE, typeName: t.startsWith('.') ? t : `.${pkg}.${t}` });
  if (type.startsWith('map:')) {
    const entry = `${name.replace(/(^|_)(\w)/g, (_m, _u, c: string) => c.toUpperCase())}Entry`;
    return {
      field: { name, jsonName, number, label: REPEATED, type: MESSAGE, typeName: `.${pkg}.${msg}.${entry}` },
      entry: {
        name: entry, options: { mapEntry: true },
        field: [{ name: 'key', jsonName: 'key', number: 1, label: OPTIONAL, type: SCALAR.string }, { name: 'value', jsonName: 'value', number: 2, label: OPTIONAL, ...typeOf(type.slice(4)) }],
      },
    };
  }
  return { field: { name, jsonName, number, label: rep ? REPEATED : OPTIONAL, ...typeOf(type) } };
}

/** A file descriptor of `pkg` with its messages, enums and one service. */
function fileProto(pkg: string, messages: Messages, enums: Record<string, string[]>, service: { name: string; methods: [string, string, string][] }, deps: string[]) {
  return create(FileDescriptorProtoSchema, {
    name: `${pkg.replace('.', '/')}/forge.proto`,
    package: pkg,
    syntax: 'proto3',
    dependency: deps,
    enumType: Object.entries(enums).map(([name, values]) => ({ name, value: values.map((v, i) => ({ name: v, number: i })) })),
    messageType: Object.entries(messages).map(([msg, fields]) => {
      const parts = Object.entries(fields).map(([name, f]) => fieldProto(pkg, enums, msg, name, f));
      return {
        name: msg,
        field: parts.map((p) => p.field),
        nestedType: parts.flatMap((p) => (p.entry ? [p.entry] : [])),
      };
    }),
    service: [{ name: service.name, method: service.methods.map(([name, input, output]) => ({ name, inputType: `.${pkg}.${input}`, outputType: `.${pkg}.${output}` })) }],
  });
}

const wkt = (name: string) => [file_google_protobuf_struct, file_google_protobuf_timestamp].find((f) => f.proto.name === name);
const runnerRegistry = createFileRegistry(fileProto('runner.v1', RUNNER, RUNNER_ENUMS, {
  name: 'RunnerService',
  methods: ['Register', 'Declare', 'FetchTask', 'UpdateTask', 'UpdateLog'].map((m) => [m, `${m}Request`, `${m}Response`]),
}, ['google/protobuf/struct.proto', 'google/protobuf/timestamp.proto']), wkt);
const pingRegistry = createFileRegistry(fileProto('ping.v1', { PingRequest: { data: [1, 'string'] }, PingResponse: { data: [1, 'string'] } }, {}, {
  name: 'PingService', methods: [['Ping', 'PingRequest', 'PingResponse']],
}, []), () => undefined);

/** `runner.v1.RunnerService`. */
export const RunnerService: DescService = runnerRegistry.getService('runner.v1.RunnerService')!;
/** `ping.v1.PingService`. */
export const PingService: DescService = pingRegistry.getService('ping.v1.PingService')!;
/** A message type of `runner.v1` by its short name. */
export function runnerMessage(name: string): DescMessage {
  return runnerRegistry.getMessage(`runner.v1.${name}`)!;
}

// The field of runner.v1.Task that holds its context.
const TASK_CONTEXT = 3;

/**
 * Make a Task ready for the binary encoding: its context (a google.protobuf.Struct) is written here
 * and carried as an unknown field, which toBinary copies as it is; the message decodes the same.
 * why: protobuf-es turns every value of a Struct into a message by reflection, about 0.7 ms for a
 * Task's context (the event payload with its repository and sender); written directly it takes a
 * few dozen microseconds, and a runner fetches a Task for every job.
 */
export function packTaskContext(task: Message): void {
  const t = task as unknown as { context?: JsonObject; $unknown?: { no: number; wireType: WireType; data: Uint8Array }[] };
  if (!t.context) return;
  t.$unknown = [...(t.$unknown ?? []), { no: TASK_CONTEXT, wireType: WireType.LengthDelimited, data: encodeStruct(t.context) }];
  t.context = undefined;
}

/**
 * A google.protobuf.Struct in the binary format, with its length in front (a length-delimited
 * field's value). Two passes: the first notes the size of every nested message in the order the
 * second writes them, so each length is known before its message and the bytes go into one buffer.
 */
function encodeStruct(obj: JsonObject): Buffer {
  const sizes: number[] = [];
  const total = structSize(obj, sizes);
  const w = { buf: Buffer.allocUnsafe(varintSize(total) + total), pos: 0, sizes, next: 0 };
  varint(w, total);
  writeStruct(w, obj);
  return w.buf;
}

// Struct: map<string, Value> fields = 1 (entries: key 1, value 2). Value: null 1, number 2, string 3,
// bool 4, struct 5, list 6. ListValue: repeated Value values = 1. Sizes are noted per entry (the entry
// and its value), per struct or list (its content) and per list element.
function structSize(obj: JsonObject, sizes: number[]): number {
  let total = 0;
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (v === undefined) continue;
    const slot = sizes.push(0, 0) - 2;
    const k = Buffer.byteLength(key);
    const value = valueSize(v, sizes);
    const entry = 1 + varintSize(k) + k + 1 + varintSize(value) + value;
    sizes[slot] = entry;
    sizes[slot + 1] = value;
    total += 1 + varintSize(entry) + entry;
  }
  return total;
}

function valueSize(v: JsonValue | undefined, sizes: number[]): number {
  if (v === null || v === undefined || typeof v === 'boolean') return 2;
  if (typeof v === 'number') return 9;
  if (typeof v === 'string') {
    const n = Buffer.byteLength(v);
    return 1 + varintSize(n) + n;
  }
  const slot = sizes.push(0) - 1;
  let inner = 0;
  if (Array.isArray(v)) {
    for (const e of v) {
      const at = sizes.push(0) - 1;
      const size = valueSize(e, sizes);
      sizes[at] = size;
      inner += 1 + varintSize(size) + size;
    }
  } else {
    inner = structSize(v, sizes);
  }
  sizes[slot] = inner;
  return 1 + varintSize(inner) + inner;
}

interface StructWriter { buf: Buffer; pos: number; sizes: number[]; next: number }

function writeStruct(w: StructWriter, obj: JsonObject): void {
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (v === undefined) continue;
    const entry = w.sizes[w.next++];
    const value = w.sizes[w.next++];
    w.buf[w.pos++] = 0x0a;
    varint(w, entry);
    w.buf[w.pos++] = 0x0a;
    writeString(w, key);
    w.buf[w.pos++] = 0x12;
    varint(w, value);
    writeValue(w, v);
  }
}

function writeValue(w: StructWriter, v: JsonValue | undefined): void {
  if (v === null || v === undefined) {
    w.buf[w.pos++] = 0x08;
    w.buf[w.pos++] = 0;
  } else if (typeof v === 'boolean') {
    w.buf[w.pos++] = 0x20;
    w.buf[w.pos++] = v ? 1 : 0;
  } else if (typeof v === 'number') {
    w.buf[w.pos++] = 0x11;
    w.pos = w.buf.writeDoubleLE(v, w.pos);
  } else if (typeof v === 'string') {
    w.buf[w.pos++] = 0x1a;
    writeString(w, v);
  } else {
    w.buf[w.pos++] = Array.isArray(v) ? 0x32 : 0x2a;
    varint(w, w.sizes[w.next++]);
    if (!Array.isArray(v)) return writeStruct(w, v);
    for (const e of v) {
      w.buf[w.pos++] = 0x0a;
      varint(w, w.sizes[w.next++]);
      writeValue(w, e);
    }
  }
}

function writeString(w: StructWriter, s: string): void {
  varint(w, Buffer.byteLength(s));
  w.pos += w.buf.write(s, w.pos);
}

function varint(w: StructWriter, n: number): void {
  while (n > 0x7f) {
    w.buf[w.pos++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  w.buf[w.pos++] = n;
}

function varintSize(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
}

/** `runner.v1.Result` (equal to the done codes of a job's status). */
export enum RunnerResult { Unspecified = 0, Success = 1, Failure = 2, Cancelled = 3, Skipped = 4 }

interface Timestamp { seconds: bigint; nanos: number }
/** runner.v1.Runner as the handlers fill it. */
export interface RunnerMsg { id: bigint; uuid: string; token: string; name: string; status: number; version: string; labels: string[]; agentLabels: string[]; ephemeral: boolean }
/** runner.v1.StepState. */
export interface StepStateMsg { id: bigint; result: number; startedAt?: Timestamp; stoppedAt?: Timestamp; logIndex: bigint; logLength: bigint }
/** runner.v1.TaskState. */
export interface TaskStateMsg { id: bigint; result: number; startedAt?: Timestamp; stoppedAt?: Timestamp; steps: StepStateMsg[] }
/** runner.v1.LogRow. */
export interface LogRowMsg { time?: Timestamp; content: string }
/** runner.v1.TaskNeed. */
export interface TaskNeedMsg { outputs: Record<string, string>; result: number }
/** runner.v1.Task. */
export interface TaskMsg {
  id: bigint; workflowPayload: Uint8Array; context: Record<string, unknown>; secrets: Record<string, string>;
  machine: string; needs: Record<string, TaskNeedMsg>; vars: Record<string, string>;
}
/** Requests as the handlers read them. */
export interface RegisterRequestMsg { name: string; token: string; agentLabels: string[]; customLabels: string[]; version: string; labels: string[]; ephemeral: boolean }
export interface DeclareRequestMsg { version: string; labels: string[] }
export interface FetchTaskRequestMsg { tasksVersion: bigint }
export interface UpdateTaskRequestMsg { state?: TaskStateMsg; outputs: Record<string, string> }
export interface UpdateLogRequestMsg { taskId: bigint; index: bigint; rows: LogRowMsg[]; noMore: boolean }
