/** The organization (extension): its settings and its API keys, as the real API's official client reads them. */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { App, EmulatorContext } from './context.ts';
import { management, ok, OrgParams, ORG } from './route-kit.ts';
import type { OrganizationRecord } from './store.ts';

/** PATCH organization body: only the name and the core-dump switch can change. */
export const OrganizationUpdateRequest = z.strictObject({
  name: z.string().min(1).max(255).optional(),
  enableCoreDumps: z.boolean().optional(),
});

/** A uuid (v4-shaped) derived from the key id, so the key keeps its id across restarts. */
function keyUuid(keyId: string): string {
  const hex = createHash('sha256').update(keyId).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

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

  // The one key the emulator knows is the one it authenticates; its secret never appears, only the suffix
  // the official client matches against its own key id.
  app.get(`${ORG}/keys`, management(OrgParams), () =>
    ok([
      {
        id: keyUuid(ctx.keyId),
        name: 'sluice emulator key',
        state: 'enabled',
        roles: ['admin'],
        keySuffix: ctx.keyId.slice(-4),
        createdAt: store.organization.createdAt,
        expireAt: null,
        usedAt: new Date().toISOString(),
      },
    ]),
  );
}
