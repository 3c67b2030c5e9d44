import { Injectable } from '@nestjs/common';
import { DatabaseError } from 'pg';
import { ConsoleAuditRepository, type AuditEntry } from '../audit/console-audit.repository';
import { PrismaService } from '../prisma.service';
import type { ParamsOf, PgType, PgTypes, RowOf, SqlStatement } from '../sql/statement';

const UNIQUE_VIOLATION = '23505';

/** What a refund's and a cancel's repository share: how an operation on a charge is requested. */
@Injectable()
export abstract class ChargeOperationRepository {
  constructor(
    protected readonly prisma: PrismaService,
    protected readonly audit: ConsoleAuditRepository,
  ) {}

  /**
   * Runs the operation's request statement (REQUEST_REFUND, REQUEST_CANCEL) for `request`, the
   * statement's parameters, and answers its row (none: no such charge in the scope), whose `created`
   * says whether it inserted the operation. Without `audit` it is a `write`: an answer lost after
   * sending is WriteOutcomeUnknownError. With `audit` (a console write), the statement and the audit
   * row of a created operation share one transaction, whose lost COMMIT answer is
   * WriteOutcomeUnknownError as well. 'id_taken': an operation of this id exists already (a front
   * end's resubmitted form), refused by the table's primary key; nothing was written.
   */
  protected async runRequest<P extends PgTypes, C extends PgTypes & { created: PgType<boolean> }>(
    kind: 'refund' | 'cancel',
    statement: SqlStatement<P, C>,
    request: ParamsOf<P> & { id: string },
    audit: AuditEntry | undefined,
  ): Promise<RowOf<C> | undefined | 'id_taken'> {
    try {
      const rows = audit
        ? await this.prisma.inTransaction(async (client) => {
            const result = await this.prisma.run(statement, request, { db: client });
            if (result[0]?.created) await this.audit.record({ ...audit, targetId: request.id }, client);
            return result;
          })
        : await this.prisma.write(`${kind} create`, statement, request);
      return rows[0];
    } catch (error) {
      if (
        error instanceof DatabaseError &&
        error.code === UNIQUE_VIOLATION &&
        error.constraint === `${kind}s_pkey`
      )
        return 'id_taken';
      throw error;
    }
  }
}
