import { useEffect, useState } from 'react';

/**
 * The otpauth:// URI as a QR code, drawn in the browser: the secret goes to no other server. The
 * library loads with the first QR code, not with the dashboard.
 */
export function TwoFactorQrCode({ uri }: { uri: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    import('qrcode')
      .then(({ default: QRCode }) => QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 1, width: 192 }))
      .then(
        (url) => current && setSrc(url),
        (err: unknown) => console.error('Could not draw the QR code', err),
      );
    return () => {
      current = false;
    };
  }, [uri]);
  return (
    <div className="flex size-48 items-center justify-center rounded-lg border border-gray-200 bg-white">
      {src ? <img src={src} width={192} height={192} alt="QR code for your authenticator app" /> : null}
    </div>
  );
}
