import { Link } from 'react-router-dom';
import { AuthCard, textLinkClasses } from './auth-card';

// Password reset is not offered yet; this page says so plainly instead of pretending to send an email.
export function ForgotPasswordPage() {
  return (
    <AuthCard
      title="Reset your password"
      subtitle="Self-service password reset is coming soon."
      footer={
        <Link to="/login" className={textLinkClasses}>
          Back to login
        </Link>
      }
    >
      <p className="text-sm leading-6 text-gray-700">
        Password reset is not available yet. If you remember your password, you can log in as usual; otherwise
        please create a new account for now.
      </p>
    </AuthCard>
  );
}
