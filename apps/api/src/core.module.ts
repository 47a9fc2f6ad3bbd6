import { DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig, Clock } from '@app/common';
import { dataSourceOptions, poolOptions, ReplicaReads, TransactionHost } from '@app/database';

/** Connecting to a standby waits at most this long (or DB_CONNECT_TIMEOUT_MS if shorter): then the primary answers. */
const REPLICA_CONNECT_TIMEOUT_MS = 500;

/** Process-wide providers every feature module may inject: configuration, the clock, the database and its transactions. */
@Global()
@Module({})
export class CoreModule implements OnApplicationShutdown {
  constructor(@Inject(ReplicaReads) private readonly replicaReads: ReplicaReads) {}

  static register(config: AppConfig, clock: Clock): DynamicModule {
    if (!config.databaseUrl) throw new Error('CoreModule needs a database URL');
    return {
      module: CoreModule,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(config.databaseUrl),
          extra: poolOptions({
            statementTimeoutMs: config.dbStatementTimeoutMs,
            connectTimeoutMs: config.dbConnectTimeoutMs,
            poolSize: config.dbPoolSize,
          }),
          autoLoadEntities: true,
        }),
      ],
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useValue: clock },
        TransactionHost,
        {
          provide: ReplicaReads,
          inject: [TransactionHost, DataSource],
          useFactory: (tx: TransactionHost, dataSource: DataSource) =>
            new ReplicaReads(
              tx,
              {
                urls: config.databaseReplicaUrls,
                maxLagMs: config.replicaMaxLagMs,
                connectTimeoutMs: Math.min(config.dbConnectTimeoutMs, REPLICA_CONNECT_TIMEOUT_MS),
                statementTimeoutMs: config.dbStatementTimeoutMs,
                poolSize: config.dbPoolSize,
              },
              dataSource.options,
            ),
        },
      ],
      exports: [AppConfig, Clock, TransactionHost, ReplicaReads],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.replicaReads.close();
  }
}
