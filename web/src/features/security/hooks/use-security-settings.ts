import { useCallback, useEffect, useState } from 'react';
import {
  fetchSsoSettings,
  saveSsoSettings,
  SecurityApiError,
  startTestSignIn,
  type SsoSettings,
  type SsoSettingsInput,
} from '../api/security-api';

export const SETTINGS_SAVED_MESSAGE = 'Single sign-on settings saved.';

const messageOf = (failure: unknown) => (failure instanceof SecurityApiError ? failure.message : 'Something went wrong. Please try again.');

/** The workspace's single sign-on settings, their saving and the Test sign-in; owns the messages shown. */
export function useSecuritySettings() {
  const [settings, setSettings] = useState<SsoSettings | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [testing, setTesting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    fetchSsoSettings()
      .then((s) => live && setSettings(s))
      .catch((failure: unknown) => live && setLoadError(messageOf(failure)));
    return () => {
      live = false;
    };
  }, []);

  const save = useCallback(async (input: SsoSettingsInput) => {
    setSaving(true);
    setError(null);
    setSaved(null);
    try {
      setSettings(await saveSsoSettings(input));
      setSaved(SETTINGS_SAVED_MESSAGE);
      return true;
    } catch (failure) {
      setError(messageOf(failure));
      return false;
    } finally {
      setSaving(false);
    }
  }, []);

  /** Sends the person to the identity provider; they come back to this page with the result. */
  const testSignIn = useCallback(async () => {
    setTesting(true);
    setError(null);
    try {
      const { redirectUrl } = await startTestSignIn();
      window.location.assign(redirectUrl);
    } catch (failure) {
      setError(messageOf(failure));
      setTesting(false);
    }
  }, []);

  return { settings, loadError, save, saving, error, saved, testSignIn, testing };
}
