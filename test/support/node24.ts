export { node24 } from '../../tools/cluster/node24.ts';
