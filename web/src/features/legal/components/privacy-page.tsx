import { Link } from 'react-router-dom';
import { LegalPage, LegalSection } from './legal-page';

export function PrivacyPage() {
  return (
    <LegalPage
      title="Privacy Policy"
      intro="This policy explains what information Parley collects when you use the service, why we collect it, and how it is handled."
    >
      <LegalSection title="Information we collect">
        <ul className="list-disc space-y-2 pl-5">
          <li>Account details: your email address and a securely hashed version of your password.</li>
          <li>Content you add: chatbot names, pictures and knowledge base text.</li>
          <li>
            Conversations with your chatbots, together with the visitor&apos;s IP address and browser user agent, so owners can review their
            chatbot&apos;s history.
          </li>
          <li>
            Usage and billing records, such as tokens used, costs and your plan. Card payments are handled by our payment provider; we do
            not store card numbers.
          </li>
        </ul>
      </LegalSection>
      <LegalSection title="How we use it">
        <p>
          We use this information to provide and secure the service, to answer questions with your chatbots, to bill usage against your
          credit, and to support you. We do not sell personal information.
        </p>
      </LegalSection>
      <LegalSection title="Service providers">
        <p>
          To generate answers, a visitor&apos;s message and relevant parts of the chatbot&apos;s knowledge base are sent to our language
          model provider. Payments are processed by our payment provider. Each receives only what it needs to perform its service.
        </p>
      </LegalSection>
      <LegalSection title="Your data and deleting your account">
        <p>
          You can download a copy of your data, and delete your account, at any time from the{' '}
          <Link to="/account" className="rounded-sm font-medium text-brand-600 hover:text-brand-700">
            Account page
          </Link>{' '}
          when you are signed in.
        </p>
        <p>
          Deleting your account removes your chatbots, their knowledge, pictures and conversations, and your personal data, and cancels your
          subscription.
        </p>
        <p>Usage and payment records are kept only as anonymised accounting records, where the law requires us to keep them.</p>
      </LegalSection>
      <LegalSection title="Age requirement">
        <p>
          Parley is not intended for anyone under 18. We do not knowingly collect information from people under 18; if you believe we have,
          let us know and we will delete it.
        </p>
      </LegalSection>
      <LegalSection title="Changes to this policy">
        <p>We may update this policy. Material changes will be announced before they take effect.</p>
      </LegalSection>
    </LegalPage>
  );
}
