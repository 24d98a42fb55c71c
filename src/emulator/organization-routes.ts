/** The organization (extension): its settings, as the real API's official client reads them (its keys: api-keys.ts). */
import { z } from 'zod';
import type { App, EmulatorContext } from './context.ts';
import { management, ok, OrgParams, ORG } from './route-kit.ts';
import type { OrganizationRecord } from './store.ts';

/** PATCH organization body: only the name and the core-dump switch can change. */
export const OrganizationUpdateRequest = z.strictObject({
  name: z.string().min(1).max(255).optional(),
  enableCoreDumps: z.boolean().optional(),
});

function organizationView(ctx: EmulatorContext, org: OrganizationRecord) {
  return {
    id: ctx.organizationId,
    name: org.name,
    createdAt: org.createdAt,
    privateEndpoints: [] as unknown[],
    enableCoreDumps: org.enableCoreDumps,
  };
}

export function registerOrganizationRoutes(app: App, ctx: EmulatorContext): void {
  const { store } = ctx;

  app.get(ORG, management(OrgParams), () => ok(organizationView(ctx, store.organization)));

  app.patch(ORG, { ...management(OrgParams), schema: { body: OrganizationUpdateRequest } }, (request) => {
    const { name, enableCoreDumps } = request.body;
    if (name !== undefined) store.organization.name = name;
    if (enableCoreDumps !== undefined) store.organization.enableCoreDumps = enableCoreDumps;
    ctx.changed();
    return ok(organizationView(ctx, store.organization));
  });
}
