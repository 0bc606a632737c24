// What a SAML identity provider publishes about itself (its metadata XML), read for the Security page:
// its entity id, its single sign-on URL (HTTP-Redirect binding) and its signing certificate.
import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { invalid } from '@parley/common/rpc-errors.ts';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
export const MAX_METADATA_BYTES = 256 * 1024;
export const IDP_METADATA_UNREADABLE = 'The identity provider metadata could not be read: paste its SAML metadata XML.';

export interface IdpMetadata {
  entityId: string;
  entryPoint: string;
  certificate: string;
}

export function readIdpMetadata(xml: string): IdpMetadata {
  if (Buffer.byteLength(xml) > MAX_METADATA_BYTES) throw invalid('The metadata XML is too large (256 KB at most).');
  // Document type declarations are refused outright (entity expansion).
  if (/<!DOCTYPE/i.test(xml)) throw invalid(IDP_METADATA_UNREADABLE);
  let doc: Document;
  try {
    doc = new DOMParser({ errorHandler: { warning: () => undefined } }).parseFromString(xml, 'text/xml') as unknown as Document;
  } catch {
    throw invalid(IDP_METADATA_UNREADABLE);
  }
  const entity = doc.getElementsByTagNameNS(MD, 'EntityDescriptor')[0];
  const idp = doc.getElementsByTagNameNS(MD, 'IDPSSODescriptor')[0];
  if (!entity || !idp) throw invalid(IDP_METADATA_UNREADABLE);
  const services = Array.from(idp.getElementsByTagNameNS(MD, 'SingleSignOnService'));
  const redirect = services.find((s) => s.getAttribute('Binding') === REDIRECT_BINDING);
  const keys = Array.from(idp.getElementsByTagNameNS(MD, 'KeyDescriptor')).filter(
    (k) => (k.getAttribute('use') ?? 'signing') === 'signing',
  );
  const cert = keys.map((k) => k.getElementsByTagNameNS(DS, 'X509Certificate')[0]?.textContent ?? '').find(Boolean);
  if (!redirect?.getAttribute('Location') || !cert) {
    throw invalid('The metadata names no HTTP-Redirect single sign-on URL or no signing certificate.');
  }
  return {
    entityId: entity.getAttribute('entityID') ?? '',
    entryPoint: redirect.getAttribute('Location') ?? '',
    certificate: parseCertificate(cert),
  };
}

/** A certificate in PEM, from PEM or bare base64; refused when it is not an X.509 certificate. */
export function parseCertificate(raw: string): string {
  const body = raw.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  const pem = `-----BEGIN CERTIFICATE-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----`;
  try {
    new X509Certificate(pem);
  } catch {
    throw invalid('The identity provider certificate is not a valid X.509 certificate (PEM).');
  }
  return pem;
}
