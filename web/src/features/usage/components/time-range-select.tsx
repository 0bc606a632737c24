import { SelectField } from '../../../components/ui/select-field';
import { isUsageRange, USAGE_RANGES, type UsageRange } from '../usage-range';

/** The usage page's range picker: Last 7 days, Last 30 days or Last year. */
export function TimeRangeSelect({ value, onChange }: { value: UsageRange; onChange: (range: UsageRange) => void }) {
  return (
    <SelectField
      label="Time range"
      hideLabel
      options={USAGE_RANGES}
      value={value}
      onChange={(event) => {
        if (isUsageRange(event.target.value)) onChange(event.target.value);
      }}
      controlClassName="h-10 w-44 font-medium"
    />
  );
}
