// Repository webhooks (repository admins only). Like Gitea, a hook echoes its authorization_header.
import { bodyObject, noContent, ok, stringField, type RequestContext, type Route } from '../context.js';
import { notFound, unprocessable } from '../api-errors.js';
import type { Hook, Repo } from '../model.js';
import { paginate } from '../list-paging.js';
import { presentHook } from '../present.js';
import { pathRepo } from './lookup.js';

const hookTypes = [
  'dingtalk',
  'discord',
  'gitea',
  'gogs',
  'msteams',
  'slack',
  'telegram',
  'feishu',
  'wechatwork',
  'packagist',
];

function hookParam(ctx: RequestContext, repo: Repo): Hook {
  const hook = repo.hooks.find((h) => h.id === Number(ctx.params.id));
  if (!hook) throw notFound();
  return hook;
}

function stringMap(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

function createHook(ctx: RequestContext) {
  const repo = pathRepo(ctx, 'admin');
  const body = bodyObject(ctx);
  const type = stringField(body, 'type') ?? '';
  if (!hookTypes.includes(type)) throw unprocessable('Invalid hook type');
  const config = stringMap(body.config);
  if (!config?.url || !config.content_type)
    throw unprocessable('Missing config option: url and content_type are required');
  const at = ctx.state.timestamp();
  const hook: Hook = {
    id: ctx.state.nextId('hook'),
    type,
    config: { url: config.url, content_type: config.content_type, http_method: config.http_method ?? 'post' },
    events: stringList(body.events) ?? ['push'],
    active: body.active === true,
    branchFilter: stringField(body, 'branch_filter') ?? '*',
    authorizationHeader: stringField(body, 'authorization_header') ?? '',
    created: at,
    updated: at,
  };
  repo.hooks.push(hook);
  return ok(presentHook(hook), 201);
}

function editHook(ctx: RequestContext) {
  const hook = hookParam(ctx, pathRepo(ctx, 'admin'));
  const body = bodyObject(ctx);
  Object.assign(hook.config, stringMap(body.config) ?? {});
  hook.events = stringList(body.events) ?? hook.events;
  if (typeof body.active === 'boolean') hook.active = body.active;
  hook.branchFilter = stringField(body, 'branch_filter') ?? hook.branchFilter;
  hook.authorizationHeader = stringField(body, 'authorization_header') ?? hook.authorizationHeader;
  hook.updated = ctx.state.timestamp();
  return ok(presentHook(hook));
}

export const hookRoutes: Route[] = [
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/hooks',
    operationId: 'repoListHooks',
    handler: (ctx) => paginate(ctx, pathRepo(ctx, 'admin').hooks, (page) => page.map(presentHook)),
  },
  { method: 'POST', path: '/repos/{owner}/{repo}/hooks', operationId: 'repoCreateHook', handler: createHook },
  {
    method: 'GET',
    path: '/repos/{owner}/{repo}/hooks/{id}',
    operationId: 'repoGetHook',
    handler: (ctx) => ok(presentHook(hookParam(ctx, pathRepo(ctx, 'admin')))),
  },
  { method: 'PATCH', path: '/repos/{owner}/{repo}/hooks/{id}', operationId: 'repoEditHook', handler: editHook },
  {
    method: 'DELETE',
    path: '/repos/{owner}/{repo}/hooks/{id}',
    operationId: 'repoDeleteHook',
    handler: (ctx) => {
      const repo = pathRepo(ctx, 'admin');
      const hook = hookParam(ctx, repo);
      repo.hooks.splice(repo.hooks.indexOf(hook), 1);
      return noContent();
    },
  },
];
