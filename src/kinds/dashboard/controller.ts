import { ListedAlertingClient } from '../shared/listed-alerting-client.ts';
import { DASHBOARD_REASON } from './reasons.ts';
import { type Dashboard } from './schema.ts';
import type { DashboardBody } from '../../cloud/alerting-client.ts';
import type { Dashboard as CloudDashboard } from '../../cloud/schemas/clickstack.ts';
import {
  ReconcileError,
  type LostCreate,
  type CloudRecords,
  type CreatePreparation,
  type ExternalClient,
  type Observed,
} from '../../managed/index.ts';
import { RETRY_DELAYS } from '../../base/retry-delays.ts';
import { ignoreNotFound } from '../shared/cloud-calls.ts';
import { connectionOf, type KindController } from '../shared/sluice-kind.ts';
import {
  dashboardBody,
  dashboardOwner,
  dashboardStatus,
  diffDashboard,
  observedDashboard,
  tileIds,
} from './mapping.ts';

/** The Dashboard controller: its cloud client, loaded by the registry only when the kind runs. */
export const dashboardController: KindController<Dashboard, DashboardBody> = {
  connect: (_resource, context) => connectionOf(new DashboardClient(context)),
};

/**
 * Over the alerting API's dashboards. Every body sent is checked first by the API's validate call (which
 * stores nothing, and which `sluice plan` sends too): a refusal names each problem by path, nothing written.
 */
class DashboardClient
  extends ListedAlertingClient<CloudDashboard>
  implements ExternalClient<Dashboard, DashboardBody>, CloudRecords<Dashboard>, CreatePreparation<Dashboard>
{
  protected list() {
    return this.cloud.snapshots.dashboards;
  }

  protected ownerOf(dashboard: CloudDashboard) {
    return dashboardOwner(dashboard);
  }

  protected fetch(id: string) {
    return ignoreNotFound(this.cloud.alerting.getDashboard(id));
  }

  async findCreated(resource: Dashboard, lost: LostCreate | undefined): Promise<string | undefined> {
    return this.createdAfter(
      lost,
      (dashboard) => dashboard.name === resource.spec.name && dashboardOwner(dashboard) === this.record,
    );
  }

  async observe(resource: Dashboard, id: string): Promise<Observed<Dashboard, DashboardBody>> {
    const dashboard = await this.read(id);
    if (!dashboard) return { exists: false };
    const { record, unheldDifferences } = this.recordOn(resource, dashboard);
    const ids = tileIds(dashboard);
    return {
      exists: true,
      observed: observedDashboard(dashboard),
      diff: (spec: Dashboard['spec']) => ({
        differences: diffDashboard(spec, dashboard),
        plan: dashboardBody(spec, ids, record),
        available: true,
      }),
      unheldDifferences,
      status: dashboardStatus(dashboard),
    };
  }

  async ensureCreatable(resource: Dashboard): Promise<void> {
    await this.validated(dashboardBody(resource.spec, new Map(), this.record));
  }

  async create(resource: Dashboard) {
    const dashboard = await this.cloud.alerting.createDashboard(
      dashboardBody(resource.spec, new Map(), this.record),
    );
    return { externalId: dashboard.id };
  }

  async update(_resource: Dashboard, id: string, observation: { plan: DashboardBody }): Promise<void> {
    await this.validated(observation.plan);
    await this.cloud.alerting.replaceDashboard(id, observation.plan);
  }

  async delete(_resource: Dashboard, id: string): Promise<'gone'> {
    await ignoreNotFound(this.cloud.alerting.deleteDashboard(id));
    return 'gone';
  }

  /** The validate call's verdict; a refusal stops here, naming each problem. */
  private async validated(body: DashboardBody): Promise<void> {
    const verdict = await this.cloud.alerting.validateDashboard(body);
    if (verdict.valid) return;
    const problems = verdict.errors.map((error) => `${error.path}: ${error.message}`).join('; ');
    throw ReconcileError.terminal(
      DASHBOARD_REASON.InvalidSpec,
      `the alerting API refuses the dashboard: ${problems}`,
      RETRY_DELAYS.userAction,
    );
  }
}
