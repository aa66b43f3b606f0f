// The spec contract checker itself: deliberately wrong responses must each be reported, so the
// sandbox's "every answer matched the spec" cannot pass by checking nothing.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createContractChecker,
  loadSpec,
  recordContract,
  type ContractEvent,
  type SwaggerSpec,
} from './support/spec-contract.js';

const contract = createContractChecker(loadSpec());

const repo = { id: 1, name: 'widgets', full_name: 'acme/widgets', owner: { id: 2, login: 'acme' }, private: false };
const at = (operationId: string | null, status: number, body: unknown): ContractEvent => ({
  operationId,
  status,
  body,
});

describe('responses that conform', () => {
  const cases: Array<[string, ContractEvent]> = [
    ['a declared body of the declared shape', at('repoGet', 200, repo)],
    ['an unset Go pointer sent as null', at('repoGet', 200, { ...repo, owner: null, created_at: null })],
    ['a declared 204 without a body', at('repoDelete', 204, undefined)],
    ['a middleware 401 with an APIError body', at('repoGet', 401, { message: 'token is required', url: 'http://x' })],
    ['a list of the declared items', at('repoListBranches', 200, [{ name: 'main' }])],
    [
      "a renamed repository's 307 with a Location and no body",
      { ...at('repoGet', 307, undefined), headers: { Location: '/api/v1/repos/acme/new' } },
    ],
  ];
  for (const [name, event] of cases) {
    test(name, () => assert.deepEqual(contract.check(event), []));
  }
});

describe('responses that do not conform are reported', () => {
  const cases: Array<[string, ContractEvent, RegExp]> = [
    [
      'a made-up field',
      at('repoGet', 200, { ...repo, made_up: true }),
      /repoGet 200: \/made_up is not declared by the spec/,
    ],
    [
      'a made-up field in a nested object',
      at('repoGet', 200, { ...repo, owner: { login: 'acme', nope: 1 } }),
      /\/owner\/nope is not declared/,
    ],
    [
      'a made-up field in a list item',
      at('repoListBranches', 200, [{ name: 'main', bogus: 1 }]),
      /\/0\/bogus is not declared/,
    ],
    ['a field of the wrong type', at('repoGet', 200, { ...repo, id: 'one' }), /\/id must be integer/],
    ['a list where an object is declared', at('repoGet', 200, [repo]), /repoGet 200: \/ must be object/],
    ['no body where one is declared', at('repoGet', 200, undefined), /declares a body, none was sent/],
    ['a body where none is declared', at('repoDelete', 204, { deleted: true }), /declares no body, one was sent/],
    [
      'a status the operation does not declare',
      at('repoGet', 500, { message: 'boom' }),
      /repoGet 500: status is not declared/,
    ],
    ['a 201 where 200 is declared', at('repoGet', 201, repo), /repoGet 201: status is not declared/],
    [
      'a middleware error with a made-up field',
      at('repoGet', 404, { message: 'x', trace: 'y' }),
      /\/trace is not declared/,
    ],
    ['an operation the spec does not have', at('repoGetEverything', 200, {}), /operationId is not in the spec/],
    ['a response for no operation', at(null, 200, {}), /response for no spec operation/],
    ['a 307 without a Location', at('repoGet', 307, undefined), /redirect without a Location/],
    [
      'a 307 with a body',
      { ...at('repoGet', 307, { message: 'moved' }), headers: { Location: '/x' } },
      /redirect with a body/,
    ],
    [
      'a 307 of a route that names no repository',
      { ...at('userGetCurrent', 307, undefined), headers: { Location: '/x' } },
      /userGetCurrent 307: status is not declared/,
    ],
  ];
  for (const [name, event, problem] of cases) {
    test(name, () => {
      const problems = contract.check(event);
      assert.ok(
        problems.some((p) => problem.test(p)),
        `expected ${problem} in ${JSON.stringify(problems)}`,
      );
    });
  }

  test('a status whose response reference names nothing in the spec', () => {
    const broken: SwaggerSpec = {
      paths: { '/x': { get: { operationId: 'getX', responses: { '200': { $ref: '#/responses/Missing' } } } } },
      definitions: {},
      responses: {},
    };
    assert.deepEqual(createContractChecker(broken).check(at('getX', 200, undefined)), [
      "getX 200: the spec's response #/responses/Missing is not defined",
    ]);
  });

  test('a schema referring to a definition the spec lacks', () => {
    const broken: SwaggerSpec = {
      paths: {
        '/x': { get: { operationId: 'getX', responses: { '200': { schema: { $ref: '#/definitions/Nowhere' } } } } },
      },
      definitions: {},
      responses: {},
    };
    assert.match(
      createContractChecker(broken)
        .check(at('getX', 200, {}))
        .join('\n'),
      /getX 200: the spec's schema does not compile/,
    );
  });
});

describe('recordContract, the one-line hook for tests that start a sandbox', () => {
  test("collects problems and the operations checked, leaving out the sandbox's own 501 and 404", () => {
    const recorder = recordContract(contract);
    recorder.onResponse(at('repoGet', 200, repo));
    recorder.onResponse(at('repoGet', 200, { ...repo, made_up: 1 }));
    recorder.onResponse(at(null, 501, { message: 'the sandbox does not serve GET /x' }));
    recorder.onResponse(at(null, 404, { message: 'Not Found' }));
    recorder.onResponse(at(null, 500, { message: 'sandbox internal error' }));
    assert.deepEqual([...recorder.checked], ['repoGet']);
    assert.equal(recorder.problems.length, 2);
    assert.match(recorder.problems[0] ?? '', /\/made_up is not declared/);
    assert.match(recorder.problems[1] ?? '', /response for no spec operation/);
  });
});
