import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig, Clock } from '@app/common';
import { dataSourceOptions, poolOptions, TransactionHost } from '@app/database';

/** Process-wide providers every feature module may inject: configuration, the clock, the database and its transactions. */
@Global()
@Module({})
export class CoreModule {
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
      providers: [{ provide: AppConfig, useValue: config }, { provide: Clock, useValue: clock }, TransactionHost],
      exports: [AppConfig, Clock, TransactionHost],
    };
  }
}
