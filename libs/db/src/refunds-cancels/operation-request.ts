import { DatabaseError } from 'pg';
import type { ConsoleAuditRepository, AuditEntry } from '../audit/console-audit.repository';
import type { PrismaService } from '../prisma.service';
import type { ParamsOf, PgType, PgTypes, RowOf, SqlStatement } from '../sql/statement';

const UNIQUE_VIOLATION = '23505';

/**
 * Runs a refund's or a cancel's request statement (REQUEST_REFUND, REQUEST_CANCEL), whose rows say
 * whether it `created` the operation. Without `audit` it is a `write`: an answer lost after sending
 * is WriteOutcomeUnknownError. With `audit` (a console write), the statement and the audit row of a
 * created operation (`targetId`) share one transaction, whose lost COMMIT answer is
 * WriteOutcomeUnknownError as well. 'id_taken': an operation of this id exists already (a front
 * end's resubmitted form), refused by the table's primary key `primaryKey`; nothing was written.
 */
export async function runOperationRequest<
  P extends PgTypes,
  C extends PgTypes & { created: PgType<boolean> },
>(
  prisma: PrismaService,
  auditLog: ConsoleAuditRepository,
  statement: SqlStatement<P, C>,
  params: ParamsOf<P>,
  operation: { what: string; primaryKey: string; targetId: string; audit?: AuditEntry },
): Promise<RowOf<C>[] | 'id_taken'> {
  const audit = operation.audit;
  try {
    return audit
      ? await prisma.inTransaction(async (client) => {
          const rows = await prisma.run(statement, params, { db: client });
          if (rows[0]?.created) await auditLog.record({ ...audit, targetId: operation.targetId }, client);
          return rows;
        })
      : await prisma.write(operation.what, statement, params);
  } catch (error) {
    if (
      error instanceof DatabaseError &&
      error.code === UNIQUE_VIOLATION &&
      error.constraint === operation.primaryKey
    )
      return 'id_taken';
    throw error;
  }
}
