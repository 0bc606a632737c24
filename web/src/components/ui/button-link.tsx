import { Link, type LinkProps } from 'react-router-dom';
import { buttonClasses, type ButtonSize, type ButtonVariant } from './button-styles';

interface ButtonLinkProps extends LinkProps {
  variant?: ButtonVariant;
  size?: ButtonSize;
  fullWidth?: boolean;
}

/** Navigation that looks like a button; it stays a real link (middle-click, open in new tab). */
export function ButtonLink({ variant = 'primary', size = 'md', fullWidth = false, className, ...rest }: ButtonLinkProps) {
  return (
    <Link
      className={buttonClasses(
        variant,
        size,
        [fullWidth ? 'w-full' : '', typeof className === 'string' ? className : ''].filter(Boolean).join(' '),
      )}
      {...rest}
    />
  );
}
