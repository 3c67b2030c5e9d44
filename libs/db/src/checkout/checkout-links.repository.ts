import { Injectable } from '@nestjs/common';
import { UNSUCCESSFUL_CHARGE_STATUSES } from '@kessai/domain';
import type {
  CheckoutEmail,
  CheckoutForm,
  CheckoutLink,
  CheckoutProduct,
  Prisma,
} from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';
import { CLAIM_CHECKOUT_LINK_PAYMENT, RELEASE_CHECKOUT_LINK_PAYMENT } from './checkout-links.sql';
import { checkoutScope } from './checkout-forms.repository';
import type { AccessScope } from '../scope';

export type { CheckoutLink, CheckoutEmail };

export type NewCheckoutLink = Omit<
  Prisma.CheckoutLinkUncheckedCreateInput,
  'id' | 'createdOn' | 'updatedOn' | 'products' | 'emails'
>;

/** A product as a link sells it: the product and its quantity on the link. */
export type LinkProduct = CheckoutProduct & { quantity: number };

/** A link with everything its checkout shows: its form, its products, and whether its store is live. */
export type CheckoutLinkInfo = CheckoutLink & {
  form: CheckoutForm;
  products: LinkProduct[];
  storeDeleted: boolean;
};

export type NewCheckoutEmail = Omit<
  Prisma.CheckoutEmailUncheckedCreateInput,
  'id' | 'createdOn' | 'updatedOn'
>;

/**
 * Checkout links (docs/hosted-checkout.md): created by the merchant's server, each with the products
 * it sells, in one transaction; read within the caller's scope (a foreign link and a missing one are
 * the same null), or by id alone for the public checkout info, whose caller proves the link's secret.
 * Also the emails that carried a link to a customer.
 */
@Injectable()
export class CheckoutLinksRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The link and its products (each once, in the order given), all or nothing. */
  async create(
    link: NewCheckoutLink,
    products: { productId: string; quantity: number }[],
  ): Promise<CheckoutLink> {
    return this.prisma.$transaction(async (tx) => {
      const created = await tx.checkoutLink.create({ data: link });
      if (products.length > 0) {
        await tx.checkoutLinkProduct.createMany({
          data: products.map((product, position) => ({ linkId: created.id, position, ...product })),
        });
      }
      return created;
    });
  }

  findInScope(scope: AccessScope, id: string): Promise<CheckoutLink | null> {
    return this.prisma.checkoutLink.findFirst({ where: { id, ...checkoutScope(scope) } });
  }

  /** The link by id alone, with its form, products and store state: for the public checkout info. */
  async findInfo(id: string): Promise<CheckoutLinkInfo | null> {
    const link = await this.prisma.checkoutLink.findUnique({
      where: { id },
      include: { form: true, store: { select: { deletedOn: true } } },
    });
    if (!link) return null;
    const { store, ...rest } = link;
    return { ...rest, products: await this.products(id), storeDeleted: store.deletedOn !== null };
  }

  /** What authenticating a link's own credentials needs: the link's row and whether its store is live. */
  async findActiveIdentity(id: string): Promise<(CheckoutLink & { storeDeleted: boolean }) | null> {
    const link = await this.prisma.checkoutLink.findUnique({
      where: { id },
      include: { store: { select: { deletedOn: true } } },
    });
    if (!link) return null;
    const { store, ...rest } = link;
    return { ...rest, storeDeleted: store.deletedOn !== null };
  }

  /**
   * The link's claimed charge when it is a bank transfer or konbini one (paid outside, later) that
   * did not fail: its page shows its instructions again. Null otherwise.
   */
  async deferredChargeOf(linkId: string, chargeId: string): Promise<{ id: string } | null> {
    return this.prisma.charge.findFirst({
      where: {
        id: chargeId,
        status: { notIn: [...UNSUCCESSFUL_CHARGE_STATUSES] },
        metadata: { path: ['checkout_link_id'], equals: linkId },
        transactionToken: { paymentType: { in: ['bank_transfer', 'konbini'] } },
      },
      select: { id: true },
    });
  }

  /**
   * What a link's form does: `checkout` `payment`, or `token` (the page makes a token only), and the
   * payment methods its page offers.
   */
  async formSettings(
    formId: string,
  ): Promise<{ checkout: string; supportedPaymentMethods: string[] } | null> {
    return this.prisma.checkoutForm.findUnique({
      where: { id: formId },
      select: { checkout: true, supportedPaymentMethods: true },
    });
  }

  /**
   * Claims the link for the payment about to be created under `paymentId` (docs/hosted-checkout.md,
   * "One payment per link"): false when another payment holds it (in progress or done).
   */
  async claimPayment(
    linkId: string,
    kind: 'charge' | 'subscription',
    paymentId: string,
    staleSeconds: number,
  ): Promise<boolean> {
    const rows = await this.prisma.run(CLAIM_CHECKOUT_LINK_PAYMENT, {
      linkId,
      kind,
      paymentId,
      staleSeconds,
    });
    return rows.length > 0;
  }

  /** Gives the claim back (the payment was refused before anything was created). */
  async releasePayment(linkId: string, paymentId: string): Promise<void> {
    await this.prisma.run(RELEASE_CHECKOUT_LINK_PAYMENT, { linkId, paymentId });
  }

  /** The products of a link, in the link's order. */
  async products(linkId: string): Promise<LinkProduct[]> {
    const rows = await this.prisma.checkoutLinkProduct.findMany({
      where: { linkId },
      include: { product: true },
      orderBy: { position: 'asc' },
    });
    return rows.map((row) => ({ ...row.product, quantity: row.quantity }));
  }

  createEmail(email: NewCheckoutEmail): Promise<CheckoutEmail> {
    return this.prisma.checkoutEmail.create({ data: email });
  }

  findEmailInScope(scope: AccessScope, id: string): Promise<CheckoutEmail | null> {
    return this.prisma.checkoutEmail.findFirst({ where: { id, ...checkoutScope(scope) } });
  }

  async setEmailStatus(id: string, status: string): Promise<CheckoutEmail | null> {
    const updated = await this.prisma.checkoutEmail.updateMany({ where: { id }, data: { status } });
    return updated.count === 0 ? null : this.prisma.checkoutEmail.findUnique({ where: { id } });
  }
}
