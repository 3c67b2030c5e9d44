/**
 * A card token's issuer page while its 3-D Secure awaits (the SDK's ThreeDsIssuerToken, as for a
 * charge's): the stored issuer token's fields, each null when it has none.
 */
export function presentTokenThreeDsIssuerToken(issuer: Record<string, unknown>) {
  const payload = issuer.payload;
  return {
    issuer_token: typeof issuer.issuer_token === 'string' ? issuer.issuer_token : null,
    call_method: typeof issuer.call_method === 'string' ? issuer.call_method : null,
    payload:
      payload !== null && typeof payload === 'object' && !Array.isArray(payload)
        ? (payload as Record<string, unknown>)
        : {},
    payment_type: 'card',
    content_type: typeof issuer.content_type === 'string' ? issuer.content_type : null,
  };
}
