import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { BankAccountsService } from '@kessai/accounts';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { parsePageRequest, presentPage } from '../http/pagination';
import { parseInput } from '../http/validation';
import { presentBankAccount } from './bank-account.presenter';
import {
  createBankAccountSchema,
  listBankAccountsSchema,
  primaryBankAccountSchema,
  updateBankAccountSchema,
} from './bank-account.schemas';

/**
 * Bank accounts (api-reference §5.11), the SDK's bankAccounts.create/list/get/update/delete/
 * getPrimary: a merchant's, in its credential's mode, merchant credentials only. The use cases are
 * libs/accounts' BankAccountsService.
 */
@Controller('bank_accounts')
export class BankAccountsController {
  constructor(private readonly bankAccounts: BankAccountsService) {}

  @Post()
  async create(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const owner = this.bankAccounts.ownerOf(principal);
    const input = parseInput(createBankAccountSchema, body);
    return presentBankAccount(await this.bankAccounts.create(owner, input));
  }

  @Get()
  async list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    const owner = this.bankAccounts.ownerOf(principal);
    const page = parsePageRequest(query);
    const { primary } = parseInput(listBankAccountsSchema, query);
    return presentPage(await this.bankAccounts.list(owner, page, primary), page, presentBankAccount);
  }

  @Get('primary')
  async getPrimary(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    const owner = this.bankAccounts.ownerOf(principal);
    const { currency } = parseInput(primaryBankAccountSchema, query);
    return presentBankAccount(await this.bankAccounts.findPrimary(owner, currency));
  }

  @Get(':id')
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return presentBankAccount(await this.bankAccounts.find(this.bankAccounts.ownerOf(principal), id));
  }

  @Patch(':id')
  async update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: unknown) {
    const owner = this.bankAccounts.ownerOf(principal);
    await this.bankAccounts.find(owner, id);
    const input = parseInput(updateBankAccountSchema, body);
    return presentBankAccount(await this.bankAccounts.update(owner, id, input));
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<void> {
    await this.bankAccounts.delete(this.bankAccounts.ownerOf(principal), id);
  }
}
