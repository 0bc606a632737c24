import { Link, useLocation, type LinkProps } from 'react-router-dom';
import { buttonClasses, type ButtonSize } from './button-styles';

interface NavButtonLinkProps extends Omit<LinkProps, 'to'> {
  to: string;
  size?: ButtonSize;
  /**
   * Other paths this link is the current page for, as prefixes (`/chatbots` matches `/chatbots/42`);
   * the link's own path always matches, itself and below it.
   */
  alsoCurrentFor?: readonly string[];
}

const under = (pathname: string, prefix: string) => pathname === prefix || pathname.startsWith(`${prefix}/`);

/** True when `pathname` is the page `to` names, or one `alsoCurrentFor` puts under it. */
export function isCurrentPath(pathname: string, to: string, alsoCurrentFor: readonly string[] = []): boolean {
  return [to, ...alsoCurrentFor].some((prefix) => under(pathname, prefix));
}

/**
 * A header link that looks like a button and says where the person is: the current page's link is
 * outlined and carries aria-current="page", the others are quiet.
 */
export function NavButtonLink({ to, size = 'sm', alsoCurrentFor, className, ...rest }: NavButtonLinkProps) {
  const { pathname } = useLocation();
  const current = isCurrentPath(pathname, to, alsoCurrentFor);
  return (
    <Link
      to={to}
      aria-current={current ? 'page' : undefined}
      className={buttonClasses(current ? 'secondary' : 'ghost', size, typeof className === 'string' ? className : undefined)}
      {...rest}
    />
  );
}
