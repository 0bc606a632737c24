import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Alert } from '../../../components/ui/alert';
import { Button } from '../../../components/ui/button';
import { ButtonLink } from '../../../components/ui/button-link';
import { Card, CardBody } from '../../../components/ui/card';
import { PageContainer } from '../../../components/ui/page-container';
import { TextField } from '../../../components/ui/text-field';
import { useDocumentTitle } from '../../../../chat-page/src/lib/use-document-title';
import { useCreateChatbot } from '../hooks/use-create-chatbot';
import { BackLink } from './back-link';

export function CreateChatbotPage() {
  useDocumentTitle('New chatbot');
  const navigate = useNavigate();
  const { createChatbot, nameChanged, loading, error } = useCreateChatbot();
  const [name, setName] = useState('');

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const chatbot = await createChatbot(name);
    if (chatbot) navigate(`/chatbots/${chatbot.id}`);
  }

  return (
    <PageContainer className="py-8 sm:py-10">
      <div className="mx-auto max-w-xl">
        <BackLink to="/chatbots">Back to My Chatbots</BackLink>
        <h1 className="mt-6 text-2xl font-semibold tracking-tight text-gray-900 sm:text-3xl">New chatbot</h1>
        <p className="mt-1 text-sm text-gray-600">Give it a name now; its language, picture and knowledge can be set up next.</p>
        <Card className="mt-8">
          <CardBody className="p-6 sm:p-8">
            <form onSubmit={handleSubmit} className="space-y-5" noValidate>
              {error ? (
                <Alert>
                  {error.message}
                  {error.limitReached ? (
                    <>
                      {' '}
                      <Link to="/pricing" className="rounded-sm font-semibold underline underline-offset-2 hover:text-red-900">
                        Upgrade to Pro
                      </Link>{' '}
                      for unlimited chatbots.
                    </>
                  ) : null}
                </Alert>
              ) : null}
              <TextField
                label="Chatbot Name"
                name="name"
                autoComplete="off"
                placeholder="e.g. Support Assistant"
                value={name}
                onChange={(e) => {
                  setName(e.target.value);
                  nameChanged(e.target.value);
                }}
              />
              <div className="flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
                <ButtonLink to="/chatbots" variant="ghost">
                  Cancel
                </ButtonLink>
                <Button type="submit" busy={loading} busyLabel="Creating...">
                  Create Chatbot
                </Button>
              </div>
            </form>
          </CardBody>
        </Card>
      </div>
    </PageContainer>
  );
}
