import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { Spinner } from '../components/ui/spinner';
import { useSession } from '../lib/session/session-context';

/** The protected-route guard (docs/product.md, Screens and routes): spinner while loading, /login when signed out, else the page. */
export function RequireAuth() {
  const { loading, isAuthenticated } = useSession();
  const location = useLocation();

  if (loading) {
    return (
      <div className="flex flex-1 items-center justify-center py-24 text-brand-600">
        <Spinner className="size-8" label="Loading" />
      </div>
    );
  }
  if (!isAuthenticated) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  return <Outlet />;
}
