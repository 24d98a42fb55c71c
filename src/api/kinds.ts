import type { KindSchema } from './crd.ts';
import { DatabaseServiceSpec, DatabaseServiceStatus } from './database-service.ts';

/** Every kind sluice serves; `npm run generate` writes one CRD per entry. */
export const KIND_SCHEMAS: KindSchema[] = [
  {
    kind: 'DatabaseService',
    plural: 'databaseservices',
    singular: 'databaseservice',
    shortNames: ['dbs'],
    description: 'A cloud database service managed by sluice.',
    spec: DatabaseServiceSpec,
    status: DatabaseServiceStatus,
    printerColumns: [
      { name: 'Name', type: 'string', jsonPath: '.spec.name', priority: 1 },
      { name: 'State', type: 'string', jsonPath: '.status.state' },
    ],
  },
];
