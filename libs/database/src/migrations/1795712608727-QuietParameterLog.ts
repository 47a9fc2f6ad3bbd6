import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The service's role keeps bound values out of PostgreSQL's log: a statement logged for its duration or its error
 * carries `$n` and, by default, a `DETAIL: parameters: $1 = '…'` line with attendee names, emails and answers. Both
 * lengths at 0 leave that line out. For the role that runs the migrations (the service's, when it migrates at start),
 * and only what the role may set: `log_parameter_max_length_on_error` any role may; `log_parameter_max_length` a
 * superuser, or a role granted `SET ON PARAMETER log_parameter_max_length` (PostgreSQL 15+). docs/operating/deployment.md § The database
 * role says what an operator who provisions the role runs instead.
 */
export class QuietParameterLog1795712608727 implements MigrationInterface {
  name = 'QuietParameterLog1795712608727';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(forOwnRole('SET', '= 0'));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(forOwnRole('RESET', ''));
  }
}

/** `ALTER ROLE CURRENT_USER <verb> <setting> <value>` for both settings, the second only where the role may. */
function forOwnRole(verb: 'SET' | 'RESET', value: string): string {
  return `
    DO $$
    DECLARE
      allowed boolean := current_setting('is_superuser') = 'on';
    BEGIN
      EXECUTE 'ALTER ROLE CURRENT_USER ${verb} log_parameter_max_length_on_error ${value}';
      IF NOT allowed AND to_regprocedure('pg_catalog.has_parameter_privilege(text,text)') IS NOT NULL THEN
        EXECUTE 'SELECT has_parameter_privilege(''log_parameter_max_length'', ''SET'')' INTO allowed;
      END IF;
      IF allowed THEN
        EXECUTE 'ALTER ROLE CURRENT_USER ${verb} log_parameter_max_length ${value}';
      END IF;
    END $$`;
}
