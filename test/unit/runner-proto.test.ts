/**
 * A Task whose context is written by packTaskContext decodes to the same message as one that
 * protobuf-es encodes itself, whatever JSON the context holds.
 */
import { expect } from 'chai';
import { create, fromBinary, toBinary, type JsonObject } from '@bufbuild/protobuf';
import { packTaskContext, runnerMessage } from '../../src/api/runner-proto';

describe('packTaskContext', () => {
  const Response = runnerMessage('FetchTaskResponse');
  const Task = runnerMessage('Task');
  const context: JsonObject = {
    event: {
      ref: 'refs/heads/main', inputs: { seq: '7', empty: '' }, number: 42, ratio: -0.125, big: 2 ** 53, flag: true, off: false, none: null,
      list: [1, 'two', null, false, { nested: ['deep', []] }, []], empty: {}, text: 'ünïcödé ✓ \u0000 "quoted"',
    },
    token: 'secret', run_id: '12', '': 'an empty key',
  };
  const task = () => ({ id: 9n, workflowPayload: new TextEncoder().encode('on: push\n'), context: structuredClone(context), secrets: { A: 'a' }, machine: '', needs: { build: { outputs: { x: '1' }, result: 1 } }, vars: { V: 'v' } });

  it('decodes to the message protobuf-es writes, context included', () => {
    const plain = fromBinary(Response, toBinary(Response, create(Response, { tasksVersion: 3n, task: create(Task, task()) })));
    const message = create(Response, { tasksVersion: 3n, task: create(Task, task()) }) as unknown as { task: Parameters<typeof packTaskContext>[0] };
    packTaskContext(message.task);
    expect((message.task as unknown as { context?: unknown }).context).to.equal(undefined);
    const packed = fromBinary(Response, toBinary(Response, message as never));
    expect(packed).to.deep.equal(plain);
    expect((packed as unknown as { task: { context: JsonObject } }).task.context).to.deep.equal(context);
  });

  it('leaves a Task without a context as it is', () => {
    const message = create(Task, { ...task(), context: undefined });
    packTaskContext(message);
    expect(toBinary(Task, message)).to.deep.equal(toBinary(Task, create(Task, { ...task(), context: undefined })));
  });
});
