import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './libs/database/src/index.js';

/*
 * For the TypeORM CLI only (migration:generate / run / revert), loaded from the build in dist/.
 * The app builds its own data source from the validated configuration.
 */
const here = dirname(fileURLToPath(import.meta.url));
const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/scheduling_dev';

export default new DataSource({
  ...dataSourceOptions(url),
  entities: [join(here, 'apps/**/entities/*.entity.js')],
});
