import { useApolloClient } from '@apollo/client/react';
import { useState } from 'react';
import { useChatbots } from '../../../lib/chatbots/chatbots-context';
import { readToken } from '../../../lib/token-storage';
import { workspaceHeaders } from '../../../lib/workspace/workspace-storage';
import { useFlashMessage } from '../../../lib/use-flash-message';

export const UPLOAD_PICTURE_FAILED_MESSAGE = 'Failed to upload profile picture';
export const PICTURE_UPDATED_MESSAGE = 'Profile picture updated successfully';
/** The image types the picker offers and the server accepts (docs/product.md, Chatbots). */
export const PICTURE_ACCEPT = 'image/jpeg,image/png,image/gif';

/**
 * Uploads a profile picture. GraphQL has no file uploads, so this is the gateway's REST path
 * (multipart, field `profilePicture`); the new URL then goes into the cache and the list.
 */
export function useUploadProfilePicture(chatbotId: string) {
  const client = useApolloClient();
  const store = useChatbots();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const success = useFlashMessage();

  async function uploadPicture(file: File): Promise<boolean> {
    setLoading(true);
    setError(null);
    success.clear();
    try {
      const form = new FormData();
      form.append('profilePicture', file);
      const token = readToken();
      const response = await fetch(`/api/chatbot/${encodeURIComponent(chatbotId)}/profile-picture`, {
        method: 'POST',
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...workspaceHeaders() },
        body: form,
      });
      const body = (await response.json().catch(() => null)) as { profilePicture?: unknown; message?: unknown } | null;
      if (!response.ok || typeof body?.profilePicture !== 'string') {
        const message = typeof body?.message === 'string' && body.message.trim() ? body.message.trim() : null;
        setError(message ?? UPLOAD_PICTURE_FAILED_MESSAGE);
        return false;
      }
      const profilePicture = body.profilePicture;
      client.cache.modify({
        id: client.cache.identify({ __typename: 'Chatbot', id: chatbotId }),
        fields: { profilePicture: () => profilePicture },
      });
      store.update({ id: chatbotId, profilePicture });
      success.show(PICTURE_UPDATED_MESSAGE);
      return true;
    } catch {
      setError(UPLOAD_PICTURE_FAILED_MESSAGE);
      return false;
    } finally {
      setLoading(false);
    }
  }

  return { uploadPicture, loading, error, success: success.message };
}
