/** The "Powered by Parley" badge under the chat, linking to the product's home (hidden only for a pro owner who asked). */
export function PoweredByParley() {
  return (
    <p className="pb-2 text-center text-[11px] text-gray-500">
      <a href="/" target="_blank" rel="noopener" className="hover:text-gray-700 hover:underline">
        Powered by <span className="font-semibold">Parley</span>
      </a>
    </p>
  );
}
