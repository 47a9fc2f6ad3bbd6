import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Versions for the availability cache (issue 15), kept by triggers so no writer can forget them: a change
 * to what slots are computed from takes a new value of `availability_version_seq` for each subject it
 * touches, in the writing transaction. Subjects: `u:<user>` for weekly_schedules, date_overrides,
 * booking_hosts (its host), calendar_busy_times and a calendar connection's `blocks_availability`;
 * `e:<event type>` for event_types and event_type_hosts (removing a member cascades there).
 * Statement-level triggers read the transition tables, so a sync replacing 100,000 busy times bumps once.
 * Rows cascading from a deleted organization bump nothing (its versions go with it).
 */
export class AvailabilityVersions1795481064901 implements MigrationInterface {
  name = 'AvailabilityVersions1795481064901';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "availability_versions" (
                "organization_id" text NOT NULL,
                "subject" text NOT NULL,
                "version" bigint NOT NULL,
                CONSTRAINT "PK_a862583d4eb43ab0baf84105fd1" PRIMARY KEY ("organization_id", "subject")
            )
        `);
    await queryRunner.query(`
            ALTER TABLE "availability_versions"
            ADD CONSTRAINT "availability_versions_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE
        `);
    await queryRunner.query(`CREATE SEQUENCE "availability_version_seq"`);
    // TG_ARGV: the column naming the subject, its prefix. Rows come from the transition tables.
    await queryRunner.query(`
            CREATE FUNCTION availability_versions_bump() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
              source text := CASE TG_OP WHEN 'INSERT' THEN 'SELECT * FROM new_rows'
                                        WHEN 'DELETE' THEN 'SELECT * FROM old_rows'
                                        ELSE 'SELECT * FROM new_rows UNION ALL SELECT * FROM old_rows' END;
            BEGIN
              EXECUTE format(
                'INSERT INTO availability_versions (organization_id, subject, version)
                 SELECT organization_id, subject, nextval(''availability_version_seq'')
                   FROM (SELECT DISTINCT organization_id, %L || %I AS subject FROM (%s) r ORDER BY 1, 2) d
                  WHERE EXISTS (SELECT 1 FROM organizations o WHERE o.id = d.organization_id)
                 ON CONFLICT (organization_id, subject) DO UPDATE SET version = EXCLUDED.version',
                TG_ARGV[1], TG_ARGV[0], source);
              RETURN NULL;
            END $$
        `);
    // event_type_hosts has no organization column: it is the event type's.
    await queryRunner.query(`
            CREATE FUNCTION availability_versions_bump_event_type_hosts() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
              source text := CASE TG_OP WHEN 'INSERT' THEN 'SELECT event_type_id FROM new_rows'
                                        WHEN 'DELETE' THEN 'SELECT event_type_id FROM old_rows'
                                        ELSE 'SELECT event_type_id FROM new_rows UNION ALL SELECT event_type_id FROM old_rows' END;
            BEGIN
              EXECUTE format(
                'INSERT INTO availability_versions (organization_id, subject, version)
                 SELECT organization_id, subject, nextval(''availability_version_seq'')
                   FROM (SELECT DISTINCT et.organization_id, ''e:'' || et.id AS subject
                           FROM (%s) r JOIN event_types et ON et.id = r.event_type_id ORDER BY 1, 2) d
                 ON CONFLICT (organization_id, subject) DO UPDATE SET version = EXCLUDED.version',
                source);
              RETURN NULL;
            END $$
        `);
    await queryRunner.query(`
            CREATE FUNCTION availability_versions_bump_connection() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              INSERT INTO availability_versions (organization_id, subject, version)
              SELECT NEW.organization_id, 'u:' || NEW.user_id, nextval('availability_version_seq')
               WHERE EXISTS (SELECT 1 FROM organizations o WHERE o.id = NEW.organization_id)
              ON CONFLICT (organization_id, subject) DO UPDATE SET version = EXCLUDED.version;
              RETURN NULL;
            END $$
        `);
    for (const [table, column, prefix] of TRIGGERS) {
      const args = `'${column}', '${prefix}'`;
      await queryRunner.query(`
            CREATE TRIGGER ${table}_availability_insert AFTER INSERT ON "${table}" REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION availability_versions_bump(${args})`);
      await queryRunner.query(`
            CREATE TRIGGER ${table}_availability_update AFTER UPDATE ON "${table}" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION availability_versions_bump(${args})`);
      await queryRunner.query(`
            CREATE TRIGGER ${table}_availability_delete AFTER DELETE ON "${table}" REFERENCING OLD TABLE AS old_rows
            FOR EACH STATEMENT EXECUTE FUNCTION availability_versions_bump(${args})`);
    }
    await queryRunner.query(`
            CREATE TRIGGER event_type_hosts_availability_insert AFTER INSERT ON "event_type_hosts" REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION availability_versions_bump_event_type_hosts()`);
    await queryRunner.query(`
            CREATE TRIGGER event_type_hosts_availability_update AFTER UPDATE ON "event_type_hosts" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION availability_versions_bump_event_type_hosts()`);
    await queryRunner.query(`
            CREATE TRIGGER event_type_hosts_availability_delete AFTER DELETE ON "event_type_hosts" REFERENCING OLD TABLE AS old_rows
            FOR EACH STATEMENT EXECUTE FUNCTION availability_versions_bump_event_type_hosts()`);
    // Sync bookkeeping (status, validators, next_sync_at) changes nothing slots see; whether it blocks does.
    await queryRunner.query(`
            CREATE TRIGGER calendar_connections_availability_update AFTER UPDATE ON "calendar_connections"
            FOR EACH ROW WHEN (OLD.blocks_availability IS DISTINCT FROM NEW.blocks_availability)
            EXECUTE FUNCTION availability_versions_bump_connection()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER calendar_connections_availability_update ON "calendar_connections"`);
    for (const [table] of [...TRIGGERS, ['event_type_hosts']]) {
      for (const event of ['insert', 'update', 'delete'])
        await queryRunner.query(`DROP TRIGGER ${table}_availability_${event} ON "${table}"`);
    }
    await queryRunner.query(`DROP FUNCTION availability_versions_bump_connection()`);
    await queryRunner.query(`DROP FUNCTION availability_versions_bump_event_type_hosts()`);
    await queryRunner.query(`DROP FUNCTION availability_versions_bump()`);
    await queryRunner.query(`DROP SEQUENCE "availability_version_seq"`);
    await queryRunner.query(`DROP TABLE "availability_versions"`);
  }
}

/** Table, the column naming the subject, the subject's prefix. */
const TRIGGERS: [string, string, string][] = [
  ['weekly_schedules', 'user_id', 'u:'],
  ['date_overrides', 'user_id', 'u:'],
  ['booking_hosts', 'host_user_id', 'u:'],
  ['calendar_busy_times', 'user_id', 'u:'],
  ['event_types', 'id', 'e:'],
];
