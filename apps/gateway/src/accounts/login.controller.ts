import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { LoginService } from '@kessai/accounts';
import { AcceptsCredentials, CurrentPrincipal, Open } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { parseInput } from '../http/validation';
import { credentials } from './account.schemas';

/** Merchant users sign in for a login token (`Authorization: Bearer <token>`) and sign out. */
@Controller()
export class LoginController {
  constructor(private readonly logins: LoginService) {}

  @Open()
  @Post('authenticate')
  @HttpCode(200)
  async authenticate(@Body() body: unknown) {
    const { email, password } = parseInput(credentials, body);
    const { token, user, expiresOn } = await this.logins.login(email, password);
    return {
      token,
      user_id: user.id,
      merchant_id: user.merchantId,
      email: user.email,
      name: user.name,
      expires_on: expiresOn.toISOString(),
    };
  }

  /** Ends the calling login session: its token is refused from now on. */
  @AcceptsCredentials('login')
  @Post('logout')
  @HttpCode(204)
  async logout(@CurrentPrincipal() principal: Principal) {
    // the guard lets only login tokens through, so `login` is set
    if (principal.login) await this.logins.logout(principal.login.sessionId);
  }
}
